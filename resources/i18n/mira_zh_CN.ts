<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
    <context>
        <name>AppearanceTab</name>
        <message>
            <source>Theme</source>
            <translation>主题</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>语言</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>思考过程</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>深色</translation>
        </message>
        <message>
            <source>Follow system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <source>Always expanded</source>
            <translation>始终展开</translation>
        </message>
        <message>
            <source>Collapse when the answer starts</source>
            <translation>开始回答时折叠</translation>
        </message>
        <message>
            <source>Hidden</source>
            <translation>隐藏</translation>
        </message>
        <message>
            <source>Changes apply right away.</source>
            <translation>更改会立即生效。</translation>
        </message>
    </context>
    <context>
        <name>AssistantMessageWidget</name>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Waiting for the model…</source>
            <translation>正在等待模型…</translation>
        </message>
    </context>
    <context>
        <name>ComposerWidget</name>
        <message>
            <source>Add a provider in Settings to start chatting</source>
            <translation>请先在“设置”中添加模型服务，再开始聊天</translation>
        </message>
        <message>
            <source>Choose a model above to start chatting</source>
            <translation>请在上方选择一个模型，再开始聊天</translation>
        </message>
        <message>
            <source>Answer the questions above to continue</source>
            <translation>请先回答上面的问题，再继续</translation>
        </message>
        <message>
            <source>Message Mira… (Enter to send, Shift+Enter for a new line)</source>
            <translation>给 Mira 发消息…（Enter 发送，Shift+Enter 换行）</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Stop the answer (Esc)</source>
            <translation>停止回答（Esc）</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>发送</translation>
        </message>
        <message>
            <source>Send the message (Enter)</source>
            <translation>发送消息（Enter）</translation>
        </message>
    </context>
    <context>
        <name>ConversationPresenter</name>
        <message>
            <source>A new chat could not start: {reason} Your text is waiting in New chat.</source>
            <translation>新对话未能开始：{reason} 你输入的内容已保留在“新对话”中。</translation>
        </message>
        <message>
            <source>Stopped before the answer began; nothing was saved.</source>
            <translation>在回答开始前已停止，没有保存任何内容。</translation>
        </message>
    </context>
    <context>
        <name>EmptyStateWidget</name>
        <message>
            <source>Welcome to Mira</source>
            <translation>欢迎使用 Mira</translation>
        </message>
        <message>
            <source>Mira keeps every conversation on this computer. Connect a model to start: a local one through Ollama or LM Studio, or a cloud provider with an API key.</source>
            <translation>Mira 把所有对话都保存在这台电脑上。连接一个模型即可开始：可以通过 Ollama 或 LM Studio 使用本地模型，也可以用 API 密钥接入云端服务。</translation>
        </message>
        <message>
            <source>Detect Ollama on this computer</source>
            <translation>检测本机的 Ollama</translation>
        </message>
        <message>
            <source>Add a provider…</source>
            <translation>添加模型服务…</translation>
        </message>
        <message>
            <source>Add Ollama</source>
            <translation>添加 Ollama</translation>
        </message>
        <message>
            <source>Looking for Ollama at localhost:11434…</source>
            <translation>正在 localhost:11434 查找 Ollama…</translation>
        </message>
        <message>
            <source>Ollama is running on this computer.</source>
            <translation>已检测到本机正在运行 Ollama。</translation>
        </message>
        <message>
            <source>Ollama was not found at localhost:11434. Install it from ollama.com and start it, or add another provider.</source>
            <translation>在 localhost:11434 未找到 Ollama。请从 ollama.com 安装并启动它，或添加其他模型服务。</translation>
        </message>
        <message>
            <source>Could not check for Ollama: {error}</source>
            <translation>无法检测 Ollama：{error}</translation>
        </message>
    </context>
    <context>
        <name>HeaderWidget</name>
        <message>
            <source>New chat</source>
            <translation>新对话</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>更多操作</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>About Mira Desktop</source>
            <translation>关于 Mira Desktop</translation>
        </message>
        <message>
            <source>Mira Desktop {version}
A local-first AI chat app.
Data folder: {path}</source>
            <translation>Mira Desktop {version}
本地优先的 AI 聊天应用。
数据文件夹：{path}</translation>
        </message>
        <message>
            <source>Mira Desktop</source>
            <translation>Mira Desktop</translation>
        </message>
        <message>
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>新对话</translation>
        </message>
        <message>
            <source>Settings…</source>
            <translation>设置…</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
        </message>
        <message>
            <source>Open data folder</source>
            <translation>打开数据文件夹</translation>
        </message>
    </context>
    <context>
        <name>MessageWidget</name>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>复制消息</translation>
        </message>
    </context>
    <context>
        <name>ModelPickerWidget</name>
        <message>
            <source>{provider} · {model}</source>
            <translation>{provider} · {model}</translation>
        </message>
        <message>
            <source>No models — add a provider in Settings</source>
            <translation>没有可用模型——请在“设置”中添加模型服务</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>选择模型</translation>
        </message>
        <message>
            <source>{provider} · {model} (unavailable)</source>
            <translation>{provider} · {model}（不可用）</translation>
        </message>
    </context>
    <context>
        <name>ModelsTab</name>
        <message>
            <source>{provider} · {model}</source>
            <translation>{provider} · {model}</translation>
        </message>
        <message>
            <source>The compaction threshold is a number from 0 to 1, e.g. 0.8 (or empty).</source>
            <translation>压缩阈值是 0 到 1 之间的数，例如 0.8（也可以留空）。</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>正在保存…</translation>
        </message>
        <message>
            <source>Saved settings of {model}.</source>
            <translation>已保存 {model} 的设置。</translation>
        </message>
        <message>
            <source>Filter models</source>
            <translation>筛选模型</translation>
        </message>
        <message>
            <source>Context window</source>
            <translation>上下文窗口</translation>
        </message>
        <message>
            <source>Vision</source>
            <translation>视觉</translation>
        </message>
        <message>
            <source>Tier</source>
            <translation>档位</translation>
        </message>
        <message>
            <source>Compact before sending at</source>
            <translation>发送前压缩阈值</translation>
        </message>
        <message>
            <source>Unknown</source>
            <translation>未知</translation>
        </message>
        <message>
            <source> tokens</source>
            <translation> 个 token</translation>
        </message>
        <message>
            <source>Understands images</source>
            <translation>支持图片输入</translation>
        </message>
        <message>
            <source>Not set</source>
            <translation>未设置</translation>
        </message>
        <message>
            <source>Fast</source>
            <translation>快速</translation>
        </message>
        <message>
            <source>Standard</source>
            <translation>标准</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Off</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Share of the context window (0–1, e.g. 0.8). When a message would go past it, older turns are summarised first. Empty: off.</source>
            <translation>占上下文窗口的比例（0–1，例如 0.8）。消息超过该比例时，会先把较早的对话总结压缩。留空表示关闭。</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>No models yet. Add a provider, then press “Fetch models”.</source>
            <translation>还没有模型。请先添加模型服务，然后点击“获取模型”。</translation>
        </message>
    </context>
    <context>
        <name>ProviderForm</name>
        <message>
            <source>Any OpenAI-compatible server. Ollama: http://localhost:11434/v1 · LM Studio: http://localhost:1234/v1 · OpenAI: https://api.openai.com/v1 · OpenRouter: https://openrouter.ai/api/v1. Leave empty for the default.</source>
            <translation>任何兼容 OpenAI 的服务器。Ollama：http://localhost:11434/v1 · LM Studio：http://localhost:1234/v1 · OpenAI：https://api.openai.com/v1 · OpenRouter：https://openrouter.ai/api/v1。留空则使用默认地址。</translation>
        </message>
        <message>
            <source>Ollama's own API. Start Ollama on this computer and keep the default.</source>
            <translation>Ollama 原生 API。在本机启动 Ollama 并保留默认地址即可。</translation>
        </message>
        <message>
            <source>Anthropic's Messages API. An API key is required.</source>
            <translation>Anthropic Messages API，需要 API 密钥。</translation>
        </message>
        <message>
            <source>Saved — type a new key to replace it</source>
            <translation>已保存——输入新密钥可替换</translation>
        </message>
        <message>
            <source>Required</source>
            <translation>必填</translation>
        </message>
        <message>
            <source>Optional for local servers</source>
            <translation>本地服务器可不填</translation>
        </message>
        <message>
            <source>the system keyring</source>
            <translation>系统密钥环</translation>
        </message>
        <message>
            <source>Keys are stored in {where}, never in Mira's database.</source>
            <translation>密钥保存在 {where} 中，绝不会写入 Mira 的数据库。</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Kind</source>
            <translation>类型</translation>
        </message>
        <message>
            <source>Base URL</source>
            <translation>服务地址</translation>
        </message>
        <message>
            <source>API key</source>
            <translation>API 密钥</translation>
        </message>
        <message>
            <source>e.g. Ollama, LM Studio, OpenRouter</source>
            <translation>例如 Ollama、LM Studio、OpenRouter</translation>
        </message>
        <message>
            <source>OpenAI-compatible</source>
            <translation>OpenAI 兼容</translation>
        </message>
        <message>
            <source>Ollama</source>
            <translation>Ollama</translation>
        </message>
        <message>
            <source>Anthropic</source>
            <translation>Anthropic</translation>
        </message>
    </context>
    <context>
        <name>ProvidersTab</name>
        <message>
            <source>Saving…</source>
            <translation>正在保存…</translation>
        </message>
        <message>
            <source>Saved “{name}”.</source>
            <translation>已保存“{name}”。</translation>
        </message>
        <message>
            <source>Connecting to “{name}”…</source>
            <translation>正在连接“{name}”…</translation>
        </message>
        <message>
            <source>Connected — {count} models available.</source>
            <translation>连接成功——有 {count} 个可用模型。</translation>
        </message>
        <message>
            <source>Fetching models from “{name}”…</source>
            <translation>正在从“{name}”获取模型…</translation>
        </message>
        <message>
            <source>Fetched {count} models.</source>
            <translation>已获取 {count} 个模型。</translation>
        </message>
        <message>
            <source>Removing…</source>
            <translation>正在删除…</translation>
        </message>
        <message>
            <source>Removed “{name}”.</source>
            <translation>已删除“{name}”。</translation>
        </message>
        <message>
            <source>Remove “{name}”? Its model list is forgotten; conversations are kept.</source>
            <translation>删除“{name}”？它的模型列表会被清除，对话记录会保留。</translation>
        </message>
        <message>
            <source>Add</source>
            <translation>添加</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Test connection</source>
            <translation>测试连接</translation>
        </message>
        <message>
            <source>Fetch models</source>
            <translation>获取模型</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>No providers yet. Fill in the form to add one — Ollama on this computer needs no API key.</source>
            <translation>还没有模型服务。填写下面的表单即可添加——本机的 Ollama 不需要 API 密钥。</translation>
        </message>
        <message>
            <source>Connected — 1 model available.</source>
            <translation>连接成功——有 1 个可用模型。</translation>
        </message>
        <message>
            <source>Fetched 1 model.</source>
            <translation>已获取 1 个模型。</translation>
        </message>
    </context>
    <context>
        <name>SettingsDialog</name>
        <message>
            <source>Settings</source>
            <translation>设置</translation>
        </message>
        <message>
            <source>Providers</source>
            <translation>模型服务</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>模型</translation>
        </message>
        <message>
            <source>Appearance</source>
            <translation>外观</translation>
        </message>
    </context>
    <context>
        <name>StatusBox</name>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
    </context>
    <context>
        <name>StatusLabel</name>
        <message>
            <source>Check the provider's API key in Settings → Providers.</source>
            <translation>请在“设置 → 模型服务”中检查该服务的 API 密钥。</translation>
        </message>
        <message>
            <source>Pick another model, or pull it on the server (e.g. `ollama pull NAME`).</source>
            <translation>请换一个模型，或在服务器上拉取该模型（例如 `ollama pull NAME`）。</translation>
        </message>
        <message>
            <source>Compact the conversation (/compact) or start a new thread.</source>
            <translation>请压缩对话（/compact）或新建一个对话。</translation>
        </message>
        <message>
            <source>The model server had a problem; retry, or check its logs.</source>
            <translation>模型服务器出错了；请重试，或查看它的日志。</translation>
        </message>
        <message>
            <source>The server refused the request; check the model and settings.</source>
            <translation>服务器拒绝了请求；请检查模型和设置。</translation>
        </message>
        <message>
            <source>Check that the server is running and the base URL is right (e.g. start Ollama).</source>
            <translation>请确认服务器正在运行、服务地址正确（例如先启动 Ollama）。</translation>
        </message>
        <message>
            <source>The server sent an invalid or incomplete answer; retry.</source>
            <translation>服务器返回的回答无效或不完整；请重试。</translation>
        </message>
        <message>
            <source>Check that the data folder is writable and the disk is not full.</source>
            <translation>请确认数据文件夹可写、磁盘没有满。</translation>
        </message>
        <message>
            <source>Something went wrong: {error}</source>
            <translation>出错了：{error}</translation>
        </message>
    </context>
    <context>
        <name>ThinkingCard</name>
        <message>
            <source>Stop thinking</source>
            <translation>停止思考</translation>
        </message>
        <message>
            <source>Thinking {0}</source>
            <translation>思考中 {0}</translation>
        </message>
        <message>
            <source>Thoughts</source>
            <translation>思考过程</translation>
        </message>
        <message>
            <source>Thought for {0}</source>
            <translation>已思考 {0}</translation>
        </message>
    </context>
    <context>
        <name>ThreadItemDelegate</name>
        <message>
            <source>now</source>
            <translation>刚刚</translation>
        </message>
        <message>
            <source>{n} min</source>
            <translation>{n} 分钟</translation>
        </message>
        <message>
            <source>{n} h</source>
            <translation>{n} 小时</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>昨天</translation>
        </message>
        <message>
            <source>{n} d</source>
            <translation>{n} 天</translation>
        </message>
    </context>
    <context>
        <name>ThreadListModel</name>
        <message>
            <source>New chat</source>
            <translation>新对话</translation>
        </message>
    </context>
    <context>
        <name>ThreadSidebar</name>
        <message>
            <source>+  New chat</source>
            <translation>+  新对话</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>开始新对话（Ctrl+N）</translation>
        </message>
        <message>
            <source>No conversations yet.
Your chats will appear here.</source>
            <translation>还没有对话。
你的聊天记录会显示在这里。</translation>
        </message>
    </context>
    <context>
        <name>Timeline</name>
        <message>
            <source>Image: {0}</source>
            <translation>图片：{0}</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>reasoning ≈ {0}</source>
            <translation>推理 ≈ {0}</translation>
        </message>
        <message>
            <source>reasoning {0}</source>
            <translation>推理 {0}</translation>
        </message>
        <message>
            <source>Token counts estimated locally</source>
            <translation>token 数为本地估算</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>已停止</translation>
        </message>
        <message>
            <source>The answer could not be completed.</source>
            <translation>回答未能完成。</translation>
        </message>
    </context>
    <context>
        <name>WelcomeView</name>
        <message>
            <source>Explain a concept simply</source>
            <translation>通俗地解释一个概念</translation>
        </message>
        <message>
            <source>Explain how a large language model works, as if I were new to it.</source>
            <translation>请用通俗的话给初学者讲讲大语言模型是怎么工作的。</translation>
        </message>
        <message>
            <source>Summarise a document</source>
            <translation>总结一份文档</translation>
        </message>
        <message>
            <source>Summarise the attached document in five bullet points.</source>
            <translation>请用五个要点总结附件中的文档。</translation>
        </message>
        <message>
            <source>Draft an email</source>
            <translation>起草一封邮件</translation>
        </message>
        <message>
            <source>Draft a short, friendly email asking to move our meeting to next week.</source>
            <translation>帮我写一封简短、友好的邮件，请求把我们的会议改到下周。</translation>
        </message>
        <message>
            <source>Help with code</source>
            <translation>帮我看代码</translation>
        </message>
        <message>
            <source>Review this Python function and suggest improvements:

</source>
            <translation>请审查这个 Python 函数并提出改进建议：

</translation>
        </message>
        <message>
            <source>What can I help with?</source>
            <translation>有什么可以帮你？</translation>
        </message>
        <message>
            <source>Ask anything, or start from one of these examples.</source>
            <translation>随便问点什么，或者从下面的示例开始。</translation>
        </message>
    </context>
</TS>
