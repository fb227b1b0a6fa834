<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
    <context>
        <name>AgentActions</name>
        <message>
            <source>Work in the project folder</source>
            <translation>在项目文件夹中工作</translation>
        </message>
        <message>
            <source>Ask before changes</source>
            <translation>修改前先询问</translation>
        </message>
        <message>
            <source>The agent asks before it writes, edits or runs a command that changes files</source>
            <translation>智能体在写入、编辑或运行会修改文件的命令前先征得同意</translation>
        </message>
        <message>
            <source>This step no longer waits for an answer.</source>
            <translation>此步骤已不再等待答复。</translation>
        </message>
        <message>
            <source>Roll back all changes</source>
            <translation>回滚全部修改</translation>
        </message>
        <message>
            <source>Rolled back: {0}</source>
            <translation>已回滚：{0}</translation>
        </message>
        <message>
            <source>Put these files back as they were before the agent changed them?</source>
            <translation>要把这些文件恢复到智能体修改之前的样子吗？</translation>
        </message>
        <message>
            <source>Roll back</source>
            <translation>回滚</translation>
        </message>
        <message>
            <source>Not rolled back: these files changed since the agent wrote them.</source>
            <translation>未回滚：这些文件在智能体写入后又被修改过。</translation>
        </message>
        <message>
            <source>Not rolled back</source>
            <translation>未回滚</translation>
        </message>
        <message>
            <source>Plan first</source>
            <translation>先做计划</translation>
        </message>
        <message>
            <source>The agent looks around and proposes a plan; it changes nothing until you say</source>
            <translation>智能体先查看并提出计划；在你同意之前不做任何修改</translation>
        </message>
        <message>
            <source>Implement the plan.</source>
            <translation>执行这个计划。</translation>
        </message>
        <message>
            <source>Answer as an agent: it reads and changes files in the workspace's folder, and searches the chat's knowledge base and the web when they are set up</source>
            <translation>以智能体身份回答：读取并修改工作区文件夹中的文件，并在已设置时检索对话的知识库和网络</translation>
        </message>
        <message>
            <source>Answer as an agent (no project folder)</source>
            <translation>以智能体回答（无项目文件夹）</translation>
        </message>
        <message>
            <source>This plan was answered since; only the latest plan can be used.</source>
            <translation>此计划之后已有新的回复；只能使用最新的计划。</translation>
        </message>
        <message>
            <source>This chat is still answering: wait for it or stop it first.</source>
            <translation>此对话仍在回答中：请等待或先停止。</translation>
        </message>
    </context>
    <context>
        <name>AgentTab</name>
        <message>
            <source>Ask before the agent writes, edits or runs a command that changes files</source>
            <translation>智能体写入、编辑或运行会修改文件的命令前先询问</translation>
        </message>
        <message>
            <source>Developer mode: the agent may change anything in a workspace's .agent/ folder</source>
            <translation>开发者模式：智能体可以修改工作区 .agent/ 文件夹中的任何内容</translation>
        </message>
        <message>
            <source>Web search address</source>
            <translation>网页搜索地址</translation>
        </message>
        <message>
            <source>With an address, the agent can search the web: {query} marks where the words go, and the answer must be JSON results (SearXNG's, for example). Empty: no web search.</source>
            <translation>设置地址后，智能体可以搜索网页：{query} 表示搜索词的位置，返回内容须为 JSON 结果（例如 SearXNG 的）。留空：不搜索网页。</translation>
        </message>
    </context>
    <context>
        <name>AnchorRail</name>
        <message>
            <source>Context compressed</source>
            <translation>上下文已压缩</translation>
        </message>
        <message>
            <source>(attachments only)</source>
            <translation>（仅附件）</translation>
        </message>
    </context>
    <context>
        <name>AnswerMediaActions</name>
        <message>
            <source>No program to open this file was found. Use Save… to keep it.</source>
            <translation>没有找到可以打开此文件的程序。可用“保存…”保留它。</translation>
        </message>
        <message>
            <source>Saved {0}</source>
            <translation>已保存 {0}</translation>
        </message>
    </context>
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
        <message>
            <source>More actions</source>
            <translation>更多操作</translation>
        </message>
        <message>
            <source>Tool output</source>
            <translation>工具输出</translation>
        </message>
        <message>
            <source>Answer from {0}</source>
            <translation>来自 {0} 的回答</translation>
        </message>
        <message>
            <source>Answer</source>
            <translation>回答</translation>
        </message>
    </context>
    <context>
        <name>AttachmentChip</name>
        <message>
            <source>Remove this attachment</source>
            <translation>移除此附件</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>正在读取…</translation>
        </message>
        <message>
            <source>Writing down what is said…</source>
            <translation>正在写下其中说的话…</translation>
        </message>
        <message>
            <source>Remove {0}</source>
            <translation>移除 {0}</translation>
        </message>
    </context>
    <context>
        <name>AttachmentsController</name>
        <message>
            <source>"{name}" could not be attached: {error}</source>
            <translation>无法附加“{name}”：{error}</translation>
        </message>
    </context>
    <context>
        <name>BatchExport</name>
        <message>
            <source>ZIP of Markdown files (*.zip)</source>
            <translation>Markdown 文件的 ZIP 压缩包 (*.zip)</translation>
        </message>
        <message>
            <source>ZIP of HTML files (*.zip)</source>
            <translation>HTML 文件的 ZIP 压缩包 (*.zip)</translation>
        </message>
        <message>
            <source>ZIP of JSON files (*.zip)</source>
            <translation>JSON 文件的 ZIP 压缩包 (*.zip)</translation>
        </message>
        <message>
            <source>Export {n} conversations</source>
            <translation>导出 {n} 个对话</translation>
        </message>
        <message>
            <source>Exporting conversations</source>
            <translation>正在导出对话</translation>
        </message>
        <message>
            <source>Export failed</source>
            <translation>导出失败</translation>
        </message>
        <message>
            <source>Export cancelled; nothing was written.</source>
            <translation>导出已取消，未写入任何文件。</translation>
        </message>
        <message>
            <source>Exported {n} conversations to {path}</source>
            <translation>已将 {n} 个对话导出到 {path}</translation>
        </message>
    </context>
    <context>
        <name>CommandController</name>
        <message>
            <source>Summarise this conversation to free context</source>
            <translation>总结当前对话，释放上下文空间</translation>
        </message>
        <message>
            <source>Skill</source>
            <translation>技能</translation>
        </message>
        <message>
            <source>Commands</source>
            <translation>命令</translation>
        </message>
    </context>
    <context>
        <name>ComposerActions</name>
        <message>
            <source>Wait until the context is compressed, then send.</source>
            <translation>请等待上下文压缩完成后再发送。</translation>
        </message>
        <message>
            <source>{model} is not marked as able to see images; {files} will not be sent. (If it can, turn on Vision for it in Settings → Models.)</source>
            <translation>{model} 未标记为支持识图；{files} 不会被发送。（如果它支持，请在“设置 → 模型”中为它打开“视觉”。）</translation>
        </message>
        <message>
            <source>the image</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>Skills are used by the agent: turn on “{0}” in the ⋯ menu, then send.</source>
            <translation>技能由智能体使用：请在 ⋯ 菜单中打开“{0}”，再发送。</translation>
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
        <message>
            <source>Attach files</source>
            <translation>添加附件</translation>
        </message>
        <message>
            <source>Attach files (you can also drop or paste them, or type @ to search)</source>
            <translation>添加附件（也可以拖放或粘贴文件，或输入 @ 搜索）</translation>
        </message>
        <message>
            <source>Writing down what you said… Click to stop</source>
            <translation>正在写下您说的话… 点击停止</translation>
        </message>
        <message>
            <source>Images, documents and audio ({0});;All files (*)</source>
            <translation>图片、文档和音频（{0}）;;所有文件 (*)</translation>
        </message>
        <message>
            <source>Stop and write down what you said ({0}); Esc discards</source>
            <translation>停止并写下您说的话（{0}）；Esc 放弃</translation>
        </message>
        <message>
            <source>Dictate: speak, and your words are typed ({0})</source>
            <translation>语音输入：说话，您的话会被打出来（{0}）</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>消息</translation>
        </message>
        <message>
            <source>Stop dictating</source>
            <translation>停止语音输入</translation>
        </message>
        <message>
            <source>Stop writing down</source>
            <translation>停止转写</translation>
        </message>
        <message>
            <source>Dictate</source>
            <translation>语音输入</translation>
        </message>
        <message>
            <source>No models to chat with yet: fetch them in Settings → Providers</source>
            <translation>还没有可用于对话的模型：请在“设置 → 模型服务”中获取模型</translation>
        </message>
    </context>
    <context>
        <name>ContextActions</name>
        <message>
            <source>Nothing to compact yet.</source>
            <translation>还没有可以压缩的内容。</translation>
        </message>
        <message>
            <source>This thread is still answering. Stop it first, then compact.</source>
            <translation>该对话仍在回答中。请先停止，再压缩。</translation>
        </message>
        <message>
            <source>Compressing context…</source>
            <translation>正在压缩上下文…</translation>
        </message>
        <message>
            <source>Context compressed: later messages build on its summary.</source>
            <translation>上下文已压缩：之后的消息将基于这份摘要继续。</translation>
        </message>
        <message>
            <source>Context compressed to fit the model's window.</source>
            <translation>上下文已压缩，以适应模型的上下文窗口。</translation>
        </message>
        <message>
            <source>Context summary…</source>
            <translation>上下文摘要…</translation>
        </message>
        <message>
            <source>The hidden summary sent with every message of this thread</source>
            <translation>随本对话每条消息一起发送的隐藏摘要</translation>
        </message>
        <message>
            <source>Roles…</source>
            <translation>角色…</translation>
        </message>
    </context>
    <context>
        <name>ContextMeterWidget</name>
        <message>
            <source>Context usage</source>
            <translation>上下文用量</translation>
        </message>
        <message>
            <source>Context: {0} tokens (window unknown)</source>
            <translation>上下文：{0} tokens（窗口大小未知）</translation>
        </message>
        <message>
            <source>Context: {0} % of {1} tokens</source>
            <translation>上下文：已用 {0}%（窗口 {1} tokens）</translation>
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
        <message>
            <source>Saved the answer that did not fit on the disk before.</source>
            <translation>之前因磁盘已满未能保存的回答，现在已保存。</translation>
        </message>
        <message>
            <source>“{provider} · {model}” is no longer available (its provider was removed). Choose another model above.</source>
            <translation>“{provider} · {model}”已不可用（它的模型服务已被移除）。请在上方选择其他模型。</translation>
        </message>
    </context>
    <context>
        <name>DamagedDatabase</name>
        <message>
            <source>Mira cannot open its data</source>
            <translation>Mira 无法打开它的数据</translation>
        </message>
        <message>
            <source>Mira's database is damaged ({detail}).

Recover now? The damaged file is kept in the backups folder, and what can still be read is saved into a new database. Choose No to quit and leave it as it is.</source>
            <translation>Mira 的数据库已损坏（{detail}）。

现在恢复吗？损坏的文件会保留在备份文件夹中，仍能读取的内容会保存到一个新数据库里。选择“否”则退出，并保持原样。</translation>
        </message>
        <message>
            <source>Damaged database</source>
            <translation>数据库已损坏</translation>
        </message>
        <message>
            <source>The damaged database could not be read at all; Mira starts empty. It is kept as {path}; older backups are in {folder}.</source>
            <translation>损坏的数据库完全无法读取，Mira 将从空数据库开始。它保留为 {path}；更早的备份在 {folder} 中。</translation>
        </message>
        <message>
            <source>Recovered {threads} conversation(s) and {messages} message(s) from the damaged database; it is kept as {path}.</source>
            <translation>已从损坏的数据库中恢复 {threads} 个对话、{messages} 条消息；损坏的文件保留为 {path}。</translation>
        </message>
        <message>
            <source>Recovering the database…</source>
            <translation>正在恢复数据库…</translation>
        </message>
    </context>
    <context>
        <name>DictationActions</name>
        <message>
            <source>Dictate</source>
            <translation>语音输入</translation>
        </message>
        <message>
            <source>Stopped before your words were written down.</source>
            <translation>在您的话写下之前已停止。</translation>
        </message>
        <message>
            <source>Choose a speech-to-text model to dictate: Settings → Chat &amp; data (an OpenAI-compatible server, e.g. whisper-1).</source>
            <translation>要使用语音输入，请先选择语音转文字模型：设置 → 对话与数据（OpenAI 兼容服务器，例如 whisper-1）。</translation>
        </message>
        <message>
            <source>Settings…</source>
            <translation>设置…</translation>
        </message>
        <message>
            <source>Mira may not use the microphone. Allow it in your system's privacy settings (Microphone), then try again.</source>
            <translation>Mira 无权使用麦克风。请在系统的隐私设置（麦克风）中允许，然后重试。</translation>
        </message>
        <message>
            <source>Listening… {0} left: the recording stops by itself at {1}.</source>
            <translation>正在聆听… 还剩 {0}：录音到 {1} 时会自动停止。</translation>
        </message>
        <message>
            <source>Listening… {0} — click the microphone again (or press {1}) to write it down; Esc discards.</source>
            <translation>正在聆听… {0} —— 再次点击麦克风（或按 {1}）即写下文字；Esc 放弃。</translation>
        </message>
        <message>
            <source>Write down what was recorded</source>
            <translation>写下已录制的内容</translation>
        </message>
        <message>
            <source>The recording was too short to write down.</source>
            <translation>录音太短，无法写下。</translation>
        </message>
        <message>
            <source>Only silence was recorded. Is the right microphone chosen, and not muted, in your system's sound settings?</source>
            <translation>只录到了静音。请在系统的声音设置中确认选择了正确的麦克风，并且没有静音。</translation>
        </message>
        <message>
            <source>Write it down anyway</source>
            <translation>仍然写下</translation>
        </message>
        <message>
            <source>Writing down {0} of speech…</source>
            <translation>正在写下 {0} 的语音…</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Save the recording</source>
            <translation>保存录音</translation>
        </message>
        <message>
            <source>The recording could not be saved to {0}: {1}</source>
            <translation>无法将录音保存到 {0}：{1}</translation>
        </message>
        <message>
            <source>The recording was saved to {0}.</source>
            <translation>录音已保存到 {0}。</translation>
        </message>
        <message>
            <source>The last recording has not been written down yet: try again, save it, or discard it (✕) before recording again.</source>
            <translation>上一段录音还没有写下：请先重试、保存或放弃（✕），再重新录音。</translation>
        </message>
        <message>
            <source>macOS lets only an application that says why it records use the microphone: start Mira from Mira Desktop.app to dictate.</source>
            <translation>macOS 只允许说明了录音用途的应用使用麦克风：请从 Mira Desktop.app 启动 Mira 来使用语音输入。</translation>
        </message>
        <message>
            <source>Dictation not written down</source>
            <translation>语音输入尚未写下</translation>
        </message>
        <message>
            <source>What you dictated has not been written down yet. Quit anyway and lose it? (No keeps it: Save recording… under the message box keeps it as a file.)</source>
            <translation>您说的话还没有写下。仍然退出并丢弃它吗？（选“否”会保留它：消息框下方的“保存录音…”可以把它存为文件。）</translation>
        </message>
        <message>
            <source>Not sent: another conversation is open. The words are in the box.</source>
            <translation>未发送：当前打开的是另一个对话。文字已放在消息框中。</translation>
        </message>
        <message>
            <source>Not sent yet: the message box is waiting. Press Enter to send.</source>
            <translation>尚未发送：消息框正在等待。按 Enter 发送。</translation>
        </message>
    </context>
    <context>
        <name>DictationBar</name>
        <message>
            <source>Save recording…</source>
            <translation>保存录音…</translation>
        </message>
        <message>
            <source>Keep the recording as a WAV file</source>
            <translation>将录音保存为 WAV 文件</translation>
        </message>
        <message>
            <source>Discard</source>
            <translation>放弃</translation>
        </message>
    </context>
    <context>
        <name>DoctorDialog</name>
        <message>
            <source>Check data</source>
            <translation>检查数据</translation>
        </message>
        <message>
            <source>Looks for damage a crash or a hand edit can leave in the data folder: broken conversation trees, leftover answers, unused media files.</source>
            <translation>查找崩溃或手动编辑可能在数据文件夹中留下的损坏：断裂的对话树、残留的回答、未使用的媒体文件。</translation>
        </message>
        <message>
            <source>Repair</source>
            <translation>修复</translation>
        </message>
        <message>
            <source>Check again</source>
            <translation>重新检查</translation>
        </message>
        <message>
            <source>Checking the data folder…</source>
            <translation>正在检查数据文件夹…</translation>
        </message>
        <message>
            <source>Repairing…</source>
            <translation>正在修复…</translation>
        </message>
        <message>
            <source>Everything looks healthy.</source>
            <translation>一切正常。</translation>
        </message>
        <message>
            <source>Problems found: {count}. Repair fixes them as listed.</source>
            <translation>发现问题：{count} 个。“修复”会按列表所示处理它们。</translation>
        </message>
        <message>
            <source>Done: {action}</source>
            <translation>已完成：{action}</translation>
        </message>
        <message>
            <source>Repairs done: {count}. Everything looks healthy now.</source>
            <translation>已修复：{count} 项。现在一切正常。</translation>
        </message>
        <message>
            <source>Still wrong: {count}.</source>
            <translation>仍有问题：{count} 个。</translation>
        </message>
        <message>
            <source>{detail}
Repair: {fix}</source>
            <translation>{detail}
修复方式：{fix}</translation>
        </message>
    </context>
    <context>
        <name>DocumentsPane</name>
        <message>
            <source>Documents of “{0}”</source>
            <translation>“{0}”的文档</translation>
        </message>
        <message>
            <source>Documents</source>
            <translation>文档</translation>
        </message>
        <message>
            <source>Indexed</source>
            <translation>已索引</translation>
        </message>
        <message>
            <source>Could not read</source>
            <translation>无法读取</translation>
        </message>
        <message>
            <source>Add files to the knowledge base</source>
            <translation>向知识库添加文件</translation>
        </message>
        <message>
            <source>Add a folder (with subfolders)</source>
            <translation>添加文件夹（含子文件夹）</translation>
        </message>
        <message>
            <source>Adding documents…</source>
            <translation>正在添加文档…</translation>
        </message>
        <message>
            <source>Re-indexing changed files…</source>
            <translation>正在重新索引有改动的文件…</translation>
        </message>
        <message>
            <source>Removed {0} document(s).</source>
            <translation>已移除 {0} 个文档。</translation>
        </message>
        <message>
            <source>Cancelling after the current file…</source>
            <translation>当前文件处理完后取消…</translation>
        </message>
        <message>
            <source>{done} of {total}: {name}</source>
            <translation>第 {done}/{total} 个：{name}</translation>
        </message>
        <message>
            <source>{added} added, {updated} updated, {unchanged} unchanged.</source>
            <translation>新增 {added} 个，更新 {updated} 个，未变 {unchanged} 个。</translation>
        </message>
        <message>
            <source>{0} removed.</source>
            <translation>移除 {0} 个。</translation>
        </message>
        <message>
            <source>Could not read: {0}</source>
            <translation>无法读取：{0}</translation>
        </message>
        <message>
            <source>Cancelled: what was indexed before stays.</source>
            <translation>已取消：此前已索引的内容会保留。</translation>
        </message>
        <message>
            <source>Document</source>
            <translation>文档</translation>
        </message>
        <message>
            <source>Passages</source>
            <translation>段落</translation>
        </message>
        <message>
            <source>Size</source>
            <translation>大小</translation>
        </message>
        <message>
            <source>Status</source>
            <translation>状态</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>添加文件…</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>添加文件夹…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>移除</translation>
        </message>
        <message>
            <source>Re-index</source>
            <translation>重新索引</translation>
        </message>
        <message>
            <source>Re-read changed files, drop deleted ones, pick up new files in added folders</source>
            <translation>重新读取有改动的文件，移除已删除的文件，并收录已添加文件夹中的新文件</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Audio files in folders are not written down: add each file itself ({0}).</source>
            <translation>文件夹中的音频文件不会被转写：请逐个添加这些文件（{0}）。</translation>
        </message>
    </context>
    <context>
        <name>EmbeddingRow</name>
        <message>
            <source>Keyword search only. An embedding model adds search by meaning.</source>
            <translation>仅关键词检索。设置嵌入模型后可按语义检索。</translation>
        </message>
        <message>
            <source>{model} by {provider}: {done} of {total} passages have vectors.</source>
            <translation>{provider} 的 {model}：{total} 个段落中已有 {done} 个生成向量。</translation>
        </message>
        <message>
            <source>Embeddings:</source>
            <translation>嵌入模型：</translation>
        </message>
        <message>
            <source>Use</source>
            <translation>使用</translation>
        </message>
        <message>
            <source>Use this model for vectors and embed the passages</source>
            <translation>用此模型生成向量并嵌入所有段落</translation>
        </message>
        <message>
            <source>Turn off</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Embedding model</source>
            <translation>嵌入模型</translation>
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
        <message>
            <source>Looking for Ollama at {address}…</source>
            <translation>正在 {address} 查找 Ollama…</translation>
        </message>
        <message>
            <source>Ollama was not found at {address}. Install it from ollama.com and start it, or add another provider.</source>
            <translation>在 {address} 未找到 Ollama。请从 ollama.com 安装并启动它，或添加其他模型服务。</translation>
        </message>
    </context>
    <context>
        <name>ErrorTexts</name>
        <message>
            <source>Timed out connecting to {url}</source>
            <translation>连接 {url} 超时</translation>
        </message>
        <message>
            <source>Timed out waiting for {url}</source>
            <translation>等待 {url} 响应超时</translation>
        </message>
        <message>
            <source>Could not connect to {url}: {detail}</source>
            <translation>无法连接到 {url}：{detail}</translation>
        </message>
        <message>
            <source>Invalid server URL {url}: {detail}</source>
            <translation>服务器地址无效 {url}：{detail}</translation>
        </message>
        <message>
            <source>The connection to {url} failed: {detail}</source>
            <translation>与 {url} 的连接失败：{detail}</translation>
        </message>
        <message>
            <source>Could not decode the answer of {url}: {detail}</source>
            <translation>无法解码 {url} 的回答：{detail}</translation>
        </message>
        <message>
            <source>The stream ended before the answer was complete</source>
            <translation>回答还没完成，数据流就中断了</translation>
        </message>
        <message>
            <source>The disk is full; nothing was lost, but this change was not saved ({detail}).</source>
            <translation>磁盘已满：没有丢失任何内容，但这次更改没有保存（{detail}）。</translation>
        </message>
        <message>
            <source>The database is busy in another Mira window or command ({detail}).</source>
            <translation>数据库正被另一个 Mira 窗口或命令占用（{detail}）。</translation>
        </message>
        <message>
            <source>Database error: {detail}</source>
            <translation>数据库错误：{detail}</translation>
        </message>
        <message>
            <source>Try again in a moment.</source>
            <translation>请稍后再试。</translation>
        </message>
        <message>
            <source>This answer could not be saved: the disk is full. Free some space and open this chat again to save it; closing Mira before that loses it.</source>
            <translation>这条回答未能保存：磁盘已满。请腾出一些空间，再次打开此对话即可保存；在此之前关闭 Mira 会丢失它。</translation>
        </message>
        <message>
            <source>This answer could not be saved ({cause}). Open this chat again to save it; closing Mira before that loses it.</source>
            <translation>这条回答未能保存（{cause}）。再次打开此对话即可保存；在此之前关闭 Mira 会丢失它。</translation>
        </message>
        <message>
            <source>Could not save the answer: {detail}</source>
            <translation>无法保存回答：{detail}</translation>
        </message>
        <message>
            <source>This thread is still answering.</source>
            <translation>此对话仍在回答中。</translation>
        </message>
        <message>
            <source>Stop it first, then retry.</source>
            <translation>请先停止，再重试。</translation>
        </message>
        <message>
            <source>Stop it first, then send.</source>
            <translation>请先停止，再发送。</translation>
        </message>
        <message>
            <source>Type a message first.</source>
            <translation>请先输入消息。</translation>
        </message>
        <message>
            <source>There is nothing to undo in this thread.</source>
            <translation>此对话中没有可以撤销的内容。</translation>
        </message>
        <message>
            <source>There is no undone turn to restore in this thread.</source>
            <translation>此对话中没有可以恢复的已撤销轮次。</translation>
        </message>
        <message>
            <source>A title cannot be empty.</source>
            <translation>标题不能为空。</translation>
        </message>
        <message>
            <source>A provider needs a name.</source>
            <translation>模型服务需要一个名称。</translation>
        </message>
        <message>
            <source>A knowledge base needs a name.</source>
            <translation>知识库需要一个名称。</translation>
        </message>
        <message>
            <source>There is nothing to export.</source>
            <translation>没有可以导出的内容。</translation>
        </message>
        <message>
            <source>Select at least one thread.</source>
            <translation>请至少选择一个对话。</translation>
        </message>
        <message>
            <source>"{name}" is a folder, not a file.</source>
            <translation>“{name}”是文件夹，不是文件。</translation>
        </message>
        <message>
            <source>Choose a file inside it instead.</source>
            <translation>请改为选择其中的文件。</translation>
        </message>
        <message>
            <source>"{name}" no longer exists.</source>
            <translation>“{name}”已不存在。</translation>
        </message>
        <message>
            <source>It may have been moved or deleted; choose it again.</source>
            <translation>它可能已被移动或删除，请重新选择。</translation>
        </message>
        <message>
            <source>"{name}" cannot be opened: {detail}.</source>
            <translation>无法打开“{name}”：{detail}。</translation>
        </message>
        <message>
            <source>Check that you are allowed to read it.</source>
            <translation>请确认你有权限读取它。</translation>
        </message>
        <message>
            <source>"{name}" is {size}; the limit is {limit}.</source>
            <translation>“{name}”大小为 {size}，上限是 {limit}。</translation>
        </message>
        <message>
            <source>Attach a smaller file, or raise the limit in Settings → Attachments.</source>
            <translation>请附加更小的文件，或在“设置 → 附件”中提高上限。</translation>
        </message>
        <message>
            <source>"{name}" is empty (0 bytes).</source>
            <translation>“{name}”是空文件（0 字节）。</translation>
        </message>
        <message>
            <source>Check that you chose the right file.</source>
            <translation>请确认选对了文件。</translation>
        </message>
        <message>
            <source>"{name}" is in the old .{ext} format, which Mira cannot read.</source>
            <translation>“{name}”是旧的 .{ext} 格式，Mira 无法读取。</translation>
        </message>
        <message>
            <source>Mira cannot read "{name}": .{ext} files are not supported.</source>
            <translation>Mira 无法读取“{name}”：不支持 .{ext} 文件。</translation>
        </message>
        <message>
            <source>Mira cannot read "{name}": this kind of file is not supported.</source>
            <translation>Mira 无法读取“{name}”：不支持这种文件。</translation>
        </message>
        <message>
            <source>"{name}" cannot be read: it is damaged or not really {what} ({detail}).</source>
            <translation>无法读取“{name}”：文件已损坏，或并不是{what}（{detail}）。</translation>
        </message>
        <message>
            <source>"{name}" cannot be read: it is damaged or not really {what}.</source>
            <translation>无法读取“{name}”：文件已损坏，或并不是{what}。</translation>
        </message>
        <message>
            <source>Open it in the program that made it, save a fresh copy, and attach that.</source>
            <translation>请用创建它的程序打开，另存一份新副本，再附加该副本。</translation>
        </message>
        <message>
            <source>"{name}" cannot be used: {detail}.</source>
            <translation>“{name}”无法使用：{detail}。</translation>
        </message>
        <message>
            <source>Check that you chose the right file, or paste the text you want instead.</source>
            <translation>请确认选对了文件，或直接粘贴你需要的文字。</translation>
        </message>
        <message>
            <source>"{name}" looks like a binary file, not text, so it cannot be read.</source>
            <translation>“{name}”看起来是二进制文件而不是文本，无法读取。</translation>
        </message>
        <message>
            <source>Attach text, code or a document in a supported format (PDF, DOCX, PPTX, XLSX).</source>
            <translation>请附加文本、代码，或受支持格式的文档（PDF、DOCX、PPTX、XLSX）。</translation>
        </message>
        <message>
            <source>"{name}" is password-protected (or saved in the old Office format).</source>
            <translation>“{name}”受密码保护（或保存为旧的 Office 格式）。</translation>
        </message>
        <message>
            <source>This PDF is password-protected: "{name}".</source>
            <translation>此 PDF 受密码保护：“{name}”。</translation>
        </message>
        <message>
            <source>Open it, remove the password (or print it to a new PDF), and attach that copy.</source>
            <translation>请打开它并移除密码（或打印为新的 PDF），再附加该副本。</translation>
        </message>
        <message>
            <source>"{name}" is a {format} image; Mira accepts PNG, JPG, WebP and GIF.</source>
            <translation>“{name}”是 {format} 图片；Mira 支持 PNG、JPG、WebP 和 GIF。</translation>
        </message>
        <message>
            <source>Convert it to PNG or JPG and attach it again.</source>
            <translation>请转换为 PNG 或 JPG 后重新附加。</translation>
        </message>
        <message>
            <source>"{name}" has {dimensions} pixels, too many to open safely.</source>
            <translation>“{name}”有 {dimensions} 像素，太大，无法安全打开。</translation>
        </message>
        <message>
            <source>Attach a version with selectable text (run text recognition / OCR on it first).</source>
            <translation>请附加文字可选中的版本（先对它做文字识别 / OCR）。</translation>
        </message>
        <message>
            <source>a PDF</source>
            <translation>PDF 文件</translation>
        </message>
        <message>
            <source>an image</source>
            <translation>图片</translation>
        </message>
        <message>
            <source>a Word document</source>
            <translation>Word 文档</translation>
        </message>
        <message>
            <source>a PowerPoint file</source>
            <translation>PowerPoint 文件</translation>
        </message>
        <message>
            <source>an Excel workbook</source>
            <translation>Excel 工作簿</translation>
        </message>
        <message>
            <source>it contains no text</source>
            <translation>其中没有文字</translation>
        </message>
        <message>
            <source>it contains only blank space</source>
            <translation>其中只有空白</translation>
        </message>
        <message>
            <source>every sheet is empty</source>
            <translation>每个工作表都是空的</translation>
        </message>
        <message>
            <source>the PDF has no pages</source>
            <translation>这个 PDF 没有页面</translation>
        </message>
        <message>
            <source>no PDF header</source>
            <translation>没有 PDF 文件头</translation>
        </message>
        <message>
            <source>no page could be read</source>
            <translation>没有一页能读取</translation>
        </message>
        <message>
            <source>it is not an Office file inside</source>
            <translation>其内容不是 Office 文件</translation>
        </message>
        <message>
            <source>its content is not a known image format</source>
            <translation>其内容不是已知的图片格式</translation>
        </message>
        <message>
            <source>it has no text layer; it looks scanned, and Mira does not read text in images</source>
            <translation>它没有文字层，看起来是扫描件，而 Mira 不识别图片中的文字</translation>
        </message>
        <message>
            <source>Save it as .{new} and attach that copy.</source>
            <translation>请另存为 .{new} 格式，再附加该副本。</translation>
        </message>
        <message>
            <source>Supported: {supported}.</source>
            <translation>支持的格式：{supported}。</translation>
        </message>
        <message>
            <source>images (PNG, JPG, WebP, GIF), text, Markdown, CSV, JSON, YAML, code, config, logs, PDF, DOCX, PPTX and XLSX</source>
            <translation>图片（PNG、JPG、WebP、GIF）、纯文本、Markdown、CSV、JSON、YAML、代码、配置文件、日志、PDF、DOCX、PPTX 和 XLSX</translation>
        </message>
        <message>
            <source>Open it, remove the password, save it as .{kind}, and attach that copy.</source>
            <translation>请打开它、移除密码，另存为 .{kind} 格式，再附加该副本。</translation>
        </message>
        <message>
            <source>Resize it below {megapixels} megapixels and attach it again.</source>
            <translation>请把它缩小到 {megapixels} 百万像素以下，再重新附加。</translation>
        </message>
        <message>
            <source>The database "{path}" is damaged ({detail}).</source>
            <translation>数据库“{path}”已损坏（{detail}）。</translation>
        </message>
        <message>
            <source>Run `mira-desktop doctor --fix`, or open Mira and choose Recover: the damaged file is moved to the backups folder and what can still be read is saved into a new database.</source>
            <translation>请运行 `mira-desktop doctor --fix`，或打开 Mira 并选择恢复：损坏的文件会移到备份文件夹，仍能读取的内容会保存到一个新数据库里。</translation>
        </message>
        <message>
            <source>Attach a smaller file, or raise the limit in Settings → Chat &amp; data.</source>
            <translation>请附加更小的文件，或在“设置 → 对话与数据”中提高上限。</translation>
        </message>
        <message>
            <source>The model returned an empty answer.</source>
            <translation>模型返回了空的回答。</translation>
        </message>
        <message>
            <source>Retry, or try another model.</source>
            <translation>请重试，或换一个模型。</translation>
        </message>
        <message>
            <source>The model only reasoned and gave no answer (it may have run out of tokens while thinking).</source>
            <translation>模型只进行了推理，没有给出回答（可能在思考时用完了 token）。</translation>
        </message>
        <message>
            <source>Retry, allow longer answers (the role's max tokens), or try another model.</source>
            <translation>请重试、允许更长的回答（角色的最大 token 数），或换一个模型。</translation>
        </message>
        <message>
            <source>Mira already uses this folder.</source>
            <translation>Mira 正在使用这个文件夹。</translation>
        </message>
        <message>
            <source>"{folder}" is not empty and holds no Mira data.</source>
            <translation>“{folder}”不是空文件夹，也没有 Mira 的数据。</translation>
        </message>
        <message>
            <source>Choose an empty folder, or a folder Mira used before.</source>
            <translation>请选择一个空文件夹，或 Mira 以前用过的文件夹。</translation>
        </message>
        <message>
            <source>Could not copy the data to "{folder}": {detail}</source>
            <translation>无法把数据复制到“{folder}”：{detail}</translation>
        </message>
        <message>
            <source>There is no speech engine on this computer.</source>
            <translation>这台电脑上没有语音引擎。</translation>
        </message>
        <message>
            <source>Install a speech engine: eSpeak NG on Linux (sudo apt install libespeak-ng1), then restart Mira.</source>
            <translation>请安装语音引擎：Linux 上为 eSpeak NG（sudo apt install libespeak-ng1），然后重新启动 Mira。</translation>
        </message>
        <message>
            <source>The system voice failed: {cause}</source>
            <translation>系统语音出错：{cause}</translation>
        </message>
        <message>
            <source>The system voice did not finish in time.</source>
            <translation>系统语音未能及时完成。</translation>
        </message>
        <message>
            <source>Try again; a very long answer may take a while.</source>
            <translation>请重试；很长的回答可能需要一些时间。</translation>
        </message>
        <message>
            <source>The system voice produced no sound.</source>
            <translation>系统语音没有生成声音。</translation>
        </message>
        <message>
            <source>Try again; if it keeps failing, check the speech engine's voices.</source>
            <translation>请重试；如果仍然失败，请检查语音引擎的语音。</translation>
        </message>
        <message>
            <source>This answer has nothing to read aloud.</source>
            <translation>这条回答没有可朗读的内容。</translation>
        </message>
        <message>
            <source>Only its text is read; code, links and tables' rules are left out.</source>
            <translation>只朗读正文；代码、链接和表格分隔线不会读出。</translation>
        </message>
        <message>
            <source>Only an answer that has ended can be read aloud.</source>
            <translation>只有已结束的回答才能朗读。</translation>
        </message>
        <message>
            <source>Wait for the answer to finish, then try again.</source>
            <translation>请等回答结束后再试。</translation>
        </message>
        <message>
            <source>The audio of this answer is gone from the data folder.</source>
            <translation>这条回答的音频已不在数据文件夹中。</translation>
        </message>
        <message>
            <source>Read the answer aloud again.</source>
            <translation>请重新朗读这条回答。</translation>
        </message>
        <message>
            <source>Could not write {name}: {reason}</source>
            <translation>无法写入 {name}：{reason}</translation>
        </message>
        <message>
            <source>Only an answer that has ended can be illustrated.</source>
            <translation>只有已结束的回答才能配图。</translation>
        </message>
        <message>
            <source>The image of this answer is gone from the data folder.</source>
            <translation>这条回答的图片已不在数据文件夹中。</translation>
        </message>
        <message>
            <source>Make the image again.</source>
            <translation>请重新生成图片。</translation>
        </message>
        <message>
            <source>No image model is chosen.</source>
            <translation>尚未选择图像模型。</translation>
        </message>
        <message>
            <source>Choose an image model in Settings → Chat &amp; data (an OpenAI-compatible provider).</source>
            <translation>请在 设置 → 对话与数据 中选择图像模型（OpenAI 兼容的服务商）。</translation>
        </message>
        <message>
            <source>The image model's provider "{provider}" is gone.</source>
            <translation>图像模型的服务商“{provider}”已不存在。</translation>
        </message>
        <message>
            <source>"{provider}" cannot make images.</source>
            <translation>“{provider}”不能生成图片。</translation>
        </message>
        <message>
            <source>The server's image cannot be read</source>
            <translation>无法读取服务器返回的图片</translation>
        </message>
        <message>
            <source>The server sent an image in a format Mira does not keep ({format})</source>
            <translation>服务器返回的图片格式 Mira 无法保存（{format}）</translation>
        </message>
        <message>
            <source>The server sent no image</source>
            <translation>服务器没有返回图片</translation>
        </message>
        <message>
            <source>The server sent an image that is not valid base64</source>
            <translation>服务器返回的图片不是有效的 base64</translation>
        </message>
        <message>
            <source>The agent works in a project folder, and this workspace has none.</source>
            <translation>智能体需要在项目文件夹中工作，但这个工作区没有设置文件夹。</translation>
        </message>
        <message>
            <source>The workspace's folder {root} is not there any more.</source>
            <translation>工作区的文件夹 {root} 已不存在。</translation>
        </message>
        <message>
            <source>There is nothing to roll back here.</source>
            <translation>这里没有可以回滚的内容。</translation>
        </message>
        <message>
            <source>The agent is not available here.</source>
            <translation>此处无法使用智能体。</translation>
        </message>
        <message>
            <source>The agent stopped after {rounds} rounds of tool calls.</source>
            <translation>智能体在 {rounds} 轮工具调用后停止了。</translation>
        </message>
        <message>
            <source>Send “continue” to let it go on, or say what to do differently.</source>
            <translation>发送“继续”让它接着做，或说明要怎样调整。</translation>
        </message>
        <message>
            <source>Not rolled back: {files} changed since the agent wrote them.</source>
            <translation>未回滚：{files} 在智能体写入后又被修改过。</translation>
        </message>
        <message>
            <source>Nothing was written. Undo those edits first, or leave the change as it is.</source>
            <translation>没有写入任何内容。请先撤销那些修改，或保留这次改动。</translation>
        </message>
        <message>
            <source>There is no skill named {name} in .agent/skills/.</source>
            <translation>.agent/skills/ 中没有名为 {name} 的技能。</translation>
        </message>
        <message>
            <source>The skill {name} has no SKILL.md file.</source>
            <translation>技能 {name} 缺少 SKILL.md 文件。</translation>
        </message>
        <message>
            <source>Each skill is a folder there with a SKILL.md file.</source>
            <translation>每个技能都是其中的一个文件夹，内含 SKILL.md 文件。</translation>
        </message>
        <message>
            <source>A search address starts with http:// or https:// and has {query} where the words go.</source>
            <translation>搜索地址须以 http:// 或 https:// 开头，并在放搜索词的位置写 {query}。</translation>
        </message>
        <message>
            <source>For example http://localhost:8888/search?q={query}&amp;format=json (SearXNG).</source>
            <translation>例如 http://localhost:8888/search?q={query}&amp;format=json（SearXNG）。</translation>
        </message>
        <message>
            <source>Choose a folder for the workspace, bind a knowledge base to the chat, or turn the agent off for this chat.</source>
            <translation>请为工作区选择一个文件夹、为对话绑定知识库，或在此对话中关闭智能体。</translation>
        </message>
        <message>
            <source>The server may not take a reasoning level for this model: set Reasoning effort to “Server's default” (the ⋯ menu, or Settings → Models).</source>
            <translation>服务器可能不接受这个模型的推理强度：请把“推理强度”设为“服务器默认”（在 ⋯ 菜单或 设置 → 模型 中）。</translation>
        </message>
        <message>
            <source>The server sent no transcript</source>
            <translation>服务器没有返回转写文字</translation>
        </message>
        <message>
            <source>"{provider}" cannot transcribe speech.</source>
            <translation>“{provider}”无法转写语音。</translation>
        </message>
        <message>
            <source>Choose an OpenAI-compatible provider.</source>
            <translation>请选择一个 OpenAI 兼容的服务商。</translation>
        </message>
        <message>
            <source>No speech-to-text model is chosen.</source>
            <translation>尚未选择语音转文字模型。</translation>
        </message>
        <message>
            <source>The speech-to-text model's provider "{provider}" is gone.</source>
            <translation>语音转文字模型的服务商“{provider}”已不存在。</translation>
        </message>
        <message>
            <source>Name both the provider and the speech-to-text model, or neither.</source>
            <translation>请同时指定服务商和语音转文字模型，或都不指定。</translation>
        </message>
        <message>
            <source>Without them the model chosen in Settings is used.</source>
            <translation>都不指定时，使用设置中选择的模型。</translation>
        </message>
        <message>
            <source>The server of "{provider}" has no speech-to-text endpoint, or does not know the model "{model}".</source>
            <translation>“{provider}”的服务器没有语音转文字接口，或不认识模型“{model}”。</translation>
        </message>
        <message>
            <source>Check the model's name, or choose a server that transcribes speech.</source>
            <translation>请检查模型名称，或选择一个能转写语音的服务器。</translation>
        </message>
        <message>
            <source>Nothing was heard in the recording.</source>
            <translation>录音中没有听到任何内容。</translation>
        </message>
        <message>
            <source>Check the microphone and speak again, or choose another file.</source>
            <translation>请检查麦克风后再说一遍，或选择其他文件。</translation>
        </message>
        <message>
            <source>The recording is empty.</source>
            <translation>录音是空的。</translation>
        </message>
        <message>
            <source>Record again, or choose another file.</source>
            <translation>请重新录音，或选择其他文件。</translation>
        </message>
        <message>
            <source>The recording is {size}; speech-to-text takes at most {limit}.</source>
            <translation>录音大小为 {size}；语音转文字最多接受 {limit}。</translation>
        </message>
        <message>
            <source>Record a shorter clip, or split the file into smaller parts.</source>
            <translation>请录制更短的片段，或把文件拆分成较小的部分。</translation>
        </message>
        <message>
            <source>"{name}" is not an audio file that speech-to-text takes.</source>
            <translation>“{name}”不是语音转文字可接受的音频文件。</translation>
        </message>
        <message>
            <source>Use one of these formats: {formats}.</source>
            <translation>请使用以下格式之一：{formats}。</translation>
        </message>
        <message>
            <source>Cannot read "{path}": {detail}.</source>
            <translation>无法读取“{path}”：{detail}。</translation>
        </message>
        <message>
            <source>Check that the file exists and can be read.</source>
            <translation>请确认文件存在并且可读。</translation>
        </message>
        <message>
            <source>Choose a speech-to-text model in Settings → Chat &amp; data (an OpenAI-compatible provider), or with `mira-desktop provider transcription-model PROVIDER MODEL`.</source>
            <translation>请在 设置 → 对话与数据 中选择语音转文字模型（OpenAI 兼容的服务商），或使用 `mira-desktop provider transcription-model PROVIDER MODEL`。</translation>
        </message>
        <message>
            <source>{name} is {size}; an import file can be at most {limit}.</source>
            <translation>{name} 大小为 {size}；导入文件最大为 {limit}。</translation>
        </message>
        <message>
            <source>The files to import in {name} come to {size} unpacked; at most {limit} can be read.</source>
            <translation>{name} 中要导入的文件解压后共 {size}；最多只能读取 {limit}。</translation>
        </message>
        <message>
            <source>Nothing was imported. Export fewer conversations into each file.</source>
            <translation>未导入任何内容。请在每个文件中导出较少的对话。</translation>
        </message>
        <message>
            <source>already imported</source>
            <translation>之前已导入</translation>
        </message>
        <message>
            <source>no messages to import</source>
            <translation>没有可导入的消息</translation>
        </message>
        <message>
            <source>its messages' parents form a loop</source>
            <translation>其消息的上下级关系构成了循环</translation>
        </message>
        <message>
            <source>The knowledge base chosen for this chat no longer exists.</source>
            <translation>为此对话选择的知识库已不存在。</translation>
        </message>
        <message>
            <source>Pick another one, or none, above the conversation.</source>
            <translation>请在对话上方另选一个知识库，或选择“无”。</translation>
        </message>
        <message>
            <source>Could not read the API key from the system keyring ({reason}).</source>
            <translation>无法从系统钥匙串读取 API 密钥（{reason}）。</translation>
        </message>
        <message>
            <source>The system keyring did not take the API key ({reason}).</source>
            <translation>系统钥匙串未能保存 API 密钥（{reason}）。</translation>
        </message>
        <message>
            <source>Unlock the system keyring (logging in again often does), then try again.</source>
            <translation>请先解锁系统钥匙串（通常重新登录即可），然后重试。</translation>
        </message>
        <message>
            <source>a text file</source>
            <translation>文本文件</translation>
        </message>
        <message>
            <source>"{name}" unpacks to {size}; at most {limit} can be read.</source>
            <translation>“{name}”解压后有 {size}；最多只能读取 {limit}。</translation>
        </message>
        <message>
            <source>Split it into smaller files, or save a copy without large embedded media.</source>
            <translation>请把它拆分成较小的文件，或另存一份不含大型嵌入媒体的副本。</translation>
        </message>
        <message>
            <source>"{name}" holds a part that unpacks from {packed} to {size}, far more than documents do; it is refused as a possible decompression bomb.</source>
            <translation>“{name}”中有一个部分从 {packed} 解压后变成 {size}，远超正常文档；它可能是“解压炸弹”，因此被拒绝。</translation>
        </message>
        <message>
            <source>its ZIP directory is damaged</source>
            <translation>其 ZIP 目录已损坏</translation>
        </message>
        <message>
            <source>it holds far too many parts</source>
            <translation>其中包含的部件过多</translation>
        </message>
        <message>
            <source>a table is wider than Word allows</source>
            <translation>其中有表格宽于 Word 允许的列数</translation>
        </message>
        <message>
            <source>"{name}" takes too long to read: nothing usable came out of it in {seconds} seconds.</source>
            <translation>读取“{name}”耗时太久：{seconds} 秒内没有读出任何可用内容。</translation>
        </message>
        <message>
            <source>Try a smaller or simpler copy of it (a PDF can be printed to a new PDF).</source>
            <translation>请换一个更小或更简单的副本（PDF 可以打印成新的 PDF）。</translation>
        </message>
        <message>
            <source>"{name}" cannot be read: its pages are too complex (the content of a page unpacks to more than {limit}).</source>
            <translation>无法读取“{name}”：其页面过于复杂（一页的内容解压后超过 {limit}）。</translation>
        </message>
        <message>
            <source>Print it to a new PDF (or save its text) and attach that.</source>
            <translation>请把它打印成新的 PDF（或另存其文字），再附加该文件。</translation>
        </message>
        <message>
            <source>The skill {name} links outside the workspace folder, so it was not read.</source>
            <translation>技能 {name} 链接到工作区文件夹之外，因此没有读取。</translation>
        </message>
        <message>
            <source>Skills are read only from inside the workspace folder.</source>
            <translation>只读取工作区文件夹内的技能。</translation>
        </message>
        <message>
            <source>The summary was cut off at the model's answer length limit; nothing was changed.</source>
            <translation>摘要在模型的回答长度上限处被截断；未做任何更改。</translation>
        </message>
        <message>
            <source>Try again with shorter instructions, or use a model that writes longer answers.</source>
            <translation>请用更简短的说明重试，或改用能写更长回答的模型。</translation>
        </message>
        <message>
            <source>The model returned an empty summary.</source>
            <translation>模型返回了空摘要。</translation>
        </message>
        <message>
            <source>The conversation changed while it was being compressed; nothing was saved.</source>
            <translation>压缩期间对话已发生变化；未保存任何内容。</translation>
        </message>
        <message>
            <source>Run /compact again.</source>
            <translation>请再次运行 /compact。</translation>
        </message>
        <message>
            <source>"{folder}" is inside the current data folder "{current}".</source>
            <translation>“{folder}”位于当前数据文件夹“{current}”之内。</translation>
        </message>
        <message>
            <source>"{folder}" holds the current data folder "{current}".</source>
            <translation>“{folder}”包含了当前数据文件夹“{current}”。</translation>
        </message>
        <message>
            <source>Choose a folder outside the current data folder, and not one that holds it.</source>
            <translation>请选择当前数据文件夹之外、且不包含它的文件夹。</translation>
        </message>
        <message>
            <source>Cannot write to "{folder}": {detail}</source>
            <translation>无法写入“{folder}”：{detail}</translation>
        </message>
        <message>
            <source>"{folder}" no longer holds Mira data.</source>
            <translation>“{folder}”中已没有 Mira 的数据。</translation>
        </message>
        <message>
            <source>There is no database at "{path}".</source>
            <translation>“{path}”处没有数据库。</translation>
        </message>
        <message>
            <source>Could not copy the database "{path}": {detail}</source>
            <translation>无法复制数据库“{path}”：{detail}</translation>
        </message>
        <message>
            <source>Cannot read the API key file {file}: {reason}</source>
            <translation>无法读取 API 密钥文件 {file}：{reason}</translation>
        </message>
        <message>
            <source>Cannot use the data folder {folder}: {reason}</source>
            <translation>无法使用数据文件夹 {folder}：{reason}</translation>
        </message>
        <message>
            <source>Check that the folder can be written, or start with --data-dir to use another one.</source>
            <translation>请确认该文件夹可写入，或用 --data-dir 启动以改用其他文件夹。</translation>
        </message>
        <message>
            <source>No provider named "{name}".</source>
            <translation>没有名为“{name}”的模型服务。</translation>
        </message>
        <message>
            <source>Choose another model above the conversation, or check the providers in Settings → Providers.</source>
            <translation>请在对话上方选择其他模型，或在“设置 → 模型服务”中检查模型服务。</translation>
        </message>
        <message>
            <source>Add one in Settings → Providers.</source>
            <translation>请在“设置 → 模型服务”中添加一个。</translation>
        </message>
        <message>
            <source>Check the data folder with Help → Check data…</source>
            <translation>请用“帮助 → 检查数据…”检查数据文件夹。</translation>
        </message>
        <message>
            <source>Choose a speech-to-text model in Settings → Chat &amp; data (an OpenAI-compatible provider).</source>
            <translation>请在 设置 → 对话与数据 中选择语音转文字模型（OpenAI 兼容的服务商）。</translation>
        </message>
        <message>
            <source>The folder {folder} does not exist.</source>
            <translation>文件夹 {folder} 不存在。</translation>
        </message>
        <message>
            <source>Choose an existing folder.</source>
            <translation>请选择一个已存在的文件夹。</translation>
        </message>
        <message>
            <source>A workspace named "{name}" already exists.</source>
            <translation>已存在名为“{name}”的工作区。</translation>
        </message>
        <message>
            <source>Choose another name.</source>
            <translation>请换一个名称。</translation>
        </message>
        <message>
            <source>A workspace needs a name.</source>
            <translation>工作区需要一个名称。</translation>
        </message>
        <message>
            <source>Check the provider's base URL: the server has no such address (OpenAI-compatible servers need /v1 at its end, e.g. http://localhost:11434/v1).</source>
            <translation>请检查提供方的基础 URL：服务器上没有这个地址（OpenAI 兼容服务器的地址需以 /v1 结尾，例如 http://localhost:11434/v1）。</translation>
        </message>
        <message>
            <source>The account's quota or credit is used up: check the plan and billing with the provider (waiting will not help).</source>
            <translation>该账户的配额或额度已用完：请向提供方查看套餐和账单（等待也无济于事）。</translation>
        </message>
        <message>
            <source>{name} is nested too deeply (more than {limit} levels of objects and lists).</source>
            <translation>{name} 嵌套层级过深（对象和列表超过 {limit} 层）。</translation>
        </message>
        <message>
            <source>{name} is encrypted; unzip it first.</source>
            <translation>{name} 已加密；请先解压。</translation>
        </message>
        <message>
            <source>{name} is packed in a way Mira cannot unpack ({detail}); unzip it first.</source>
            <translation>{name} 的压缩方式 Mira 无法解压（{detail}）；请先解压。</translation>
        </message>
        <message>
            <source>A title holds at most {limit} characters; this one has {count}.</source>
            <translation>标题最多 {limit} 个字符，这个有 {count} 个。</translation>
        </message>
        <message>
            <source>Shorten it.</source>
            <translation>请缩短一些。</translation>
        </message>
        <message>
            <source>The API key contains characters a key cannot have (a line break, a space or an invisible character): paste it again.</source>
            <translation>API 密钥中含有密钥不能包含的字符（换行、空格或不可见字符）：请重新粘贴。</translation>
        </message>
        <message>
            <source>Check the provider's base URL: the server has no such address (Ollama's own API is at the server's root, without /v1, e.g. http://localhost:11434).</source>
            <translation>请检查提供方的基础 URL：服务器上没有这个地址（Ollama 自己的 API 位于服务器根地址，不带 /v1，例如 http://localhost:11434）。</translation>
        </message>
        <message>
            <source>Check the provider's base URL: the server has no such address (Anthropic's API is at https://api.anthropic.com, without /v1).</source>
            <translation>请检查提供方的基础 URL：服务器上没有这个地址（Anthropic 的 API 位于 https://api.anthropic.com，不带 /v1）。</translation>
        </message>
        <message>
            <source>The server at {address} does not speak HTTPS: it answers in plain HTTP.</source>
            <translation>{address} 上的服务器不支持 HTTPS：它以普通 HTTP 应答。</translation>
        </message>
        <message>
            <source>Start the provider's base URL with http://{address} instead of https://{address}.</source>
            <translation>请将该提供方的基础 URL 改为以 http://{address} 开头，而不是 https://{address}。</translation>
        </message>
        <message>
            <source>A provider named "{name}" already exists.</source>
            <translation>已有名为“{name}”的提供方。</translation>
        </message>
        <message>
            <source>A provider named "{existing}" already exists; names that differ only in upper and lower case would be mixed up.</source>
            <translation>已有名为“{existing}”的提供方；仅大小写不同的名称会被混淆。</translation>
        </message>
        <message>
            <source>already imported, nothing new</source>
            <translation>之前已导入，没有新内容</translation>
        </message>
    </context>
    <context>
        <name>ExportFeedback</name>
        <message>
            <source>Replace file</source>
            <translation>替换文件</translation>
        </message>
        <message>
            <source>{name} already exists. Replace it?</source>
            <translation>{name} 已存在。要替换它吗？</translation>
        </message>
    </context>
    <context>
        <name>FindActions</name>
        <message>
            <source>Find in this conversation…</source>
            <translation>在此对话中查找…</translation>
        </message>
    </context>
    <context>
        <name>FindBar</name>
        <message>
            <source>No matches</source>
            <translation>没有匹配</translation>
        </message>
        <message>
            <source>{0} of {1}</source>
            <translation>第 {0} 处，共 {1} 处</translation>
        </message>
        <message>
            <source>Find in this conversation</source>
            <translation>在此对话中查找</translation>
        </message>
        <message>
            <source>Close (Esc)</source>
            <translation>关闭（Esc）</translation>
        </message>
        <message>
            <source>Previous match (Shift+Enter)</source>
            <translation>上一处（Shift+Enter）</translation>
        </message>
        <message>
            <source>Next match (Enter)</source>
            <translation>下一处（Enter）</translation>
        </message>
    </context>
    <context>
        <name>FolderCopyDialog</name>
        <message>
            <source>Mira Desktop</source>
            <translation>Mira Desktop</translation>
        </message>
        <message>
            <source>Copying your data to {folder}…</source>
            <translation>正在将你的数据复制到 {folder}…</translation>
        </message>
        <message>
            <source>Mira opens when the copy is done. The previous folder is left as it was.</source>
            <translation>复制完成后 Mira 即会打开。原来的文件夹保持不变。</translation>
        </message>
        <message>
            <source>{done} of {total}</source>
            <translation>已复制 {done}，共 {total}</translation>
        </message>
    </context>
    <context>
        <name>FolderSwitch</name>
        <message>
            <source>Mira could not move to {folder} and still uses {previous}. {error}</source>
            <translation>Mira 未能切换到 {folder}，仍在使用 {previous}。{error}</translation>
        </message>
        <message>
            <source>Your data were copied to {folder}, which Mira uses from now on. The previous folder {previous} is kept as it was: delete it yourself once you are sure.</source>
            <translation>你的数据已复制到 {folder}，Mira 从现在起使用它。之前的文件夹 {previous} 保持原样：确认无误后请自行删除。</translation>
        </message>
        <message>
            <source>Mira now uses the data in {folder}. The previous folder {previous} is kept as it was.</source>
            <translation>Mira 现在使用 {folder} 中的数据。之前的文件夹 {previous} 保持原样。</translation>
        </message>
    </context>
    <context>
        <name>GeneralTab</name>
        <message>
            <source>Name new conversations automatically (a short model call)</source>
            <translation>自动为新对话命名（一次简短的模型调用）</translation>
        </message>
        <message>
            <source>Attachment limit (MB per file)</source>
            <translation>附件大小上限（每个文件，MB）</translation>
        </message>
        <message>
            <source>Empty the trash after (days, 0 = never)</source>
            <translation>回收站自动清空（天，0 表示从不）</translation>
        </message>
        <message>
            <source>Refresh the context summary every (turns, 0 = off)</source>
            <translation>每隔多少轮刷新上下文摘要（0 表示关闭）</translation>
        </message>
        <message>
            <source>Data folder</source>
            <translation>数据文件夹</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>To use another data folder, start Mira with --data-dir FOLDER or set MIRA_DATA_DIR.</source>
            <translation>要使用其他数据文件夹，请用 --data-dir 文件夹 启动 Mira，或设置 MIRA_DATA_DIR。</translation>
        </message>
        <message>
            <source>Choose a data folder</source>
            <translation>选择数据文件夹</translation>
        </message>
        <message>
            <source>{folder} holds Mira's data already. Use it from Mira's next start? The conversations there are used as they are; the current folder is kept.</source>
            <translation>{folder} 中已有 Mira 的数据。从 Mira 下次启动起使用它吗？那里的对话会按原样使用；当前文件夹会保留。</translation>
        </message>
        <message>
            <source>Copy your conversations, attachments and keys to {folder} and use it from Mira's next start? The current folder is kept as it is.</source>
            <translation>把你的对话、附件和密钥复制到 {folder}，并从 Mira 下次启动起使用它吗？当前文件夹会原样保留。</translation>
        </message>
        <message>
            <source>Change the data folder</source>
            <translation>更改数据文件夹</translation>
        </message>
        <message>
            <source>Copying your data…</source>
            <translation>正在复制你的数据…</translation>
        </message>
        <message>
            <source>Mira will use {folder} from its next start. The current folder stays as it is: delete it yourself once you are sure.</source>
            <translation>Mira 将从下次启动起使用 {folder}。当前文件夹保持原样：确认无误后可自行删除。</translation>
        </message>
        <message>
            <source>Change…</source>
            <translation>更改…</translation>
        </message>
        <message>
            <source>Another folder is used from Mira's next start. Starting Mira with --data-dir FOLDER or MIRA_DATA_DIR still picks the folder they name.</source>
            <translation>新的文件夹从 Mira 下次启动起生效。用 --data-dir 文件夹 或 MIRA_DATA_DIR 启动 Mira 时，仍以它们指定的文件夹为准。</translation>
        </message>
        <message>
            <source>None</source>
            <translation>无</translation>
        </message>
        <message>
            <source>Image model</source>
            <translation>图像模型</translation>
        </message>
        <message>
            <source>model, e.g. gpt-image-1</source>
            <translation>模型，例如 gpt-image-1</translation>
        </message>
        <message>
            <source>Illustrated answers use this provider's image endpoint (OpenAI-compatible)</source>
            <translation>为回答配图时使用此服务商的图像接口（OpenAI 兼容）</translation>
        </message>
        <message>
            <source>Speech-to-text model</source>
            <translation>语音转文字模型</translation>
        </message>
        <message>
            <source>model, e.g. whisper-1</source>
            <translation>模型，例如 whisper-1</translation>
        </message>
        <message>
            <source>Dictation (the microphone beside the message box) is written down by this provider's /audio/transcriptions endpoint (OpenAI-compatible)</source>
            <translation>语音输入（消息框旁的麦克风）由该服务商的 /audio/transcriptions 接口（OpenAI 兼容）转写为文字</translation>
        </message>
        <message>
            <source>Send dictated words at once</source>
            <translation>语音输入的文字立即发送</translation>
        </message>
        <message>
            <source>The words are sent as soon as they are written down; with Read answers aloud (the ⋯ menu) the answer is spoken back: a conversation by voice</source>
            <translation>文字一写下就立即发送；配合“朗读回答”（⋯ 菜单），回答会被读出来：用语音对话</translation>
        </message>
        <message>
            <source>Copy your conversations, attachments and keys to {folder} when Mira next starts, and use it from then on? The current folder is kept as it is.</source>
            <translation>在 Mira 下次启动时将你的对话、附件和密钥复制到 {folder}，并从那时起使用它？当前文件夹将保持原样。</translation>
        </message>
        <message>
            <source>The move to {folder} is cancelled: Mira keeps using this folder.</source>
            <translation>已取消切换到 {folder}：Mira 继续使用此文件夹。</translation>
        </message>
        <message>
            <source>Mira will copy your data to {folder} when it next starts, and use it from then on. To stay here, choose the current folder again.</source>
            <translation>Mira 将在下次启动时把你的数据复制到 {folder}，并从那时起使用它。若要留在这里，请再次选择当前文件夹。</translation>
        </message>
        <message>
            <source>Mira will use the data in {folder} from its next start. To stay here, choose the current folder again.</source>
            <translation>Mira 将从下次启动起使用 {folder} 中的数据。若要留在这里，请再次选择当前文件夹。</translation>
        </message>
        <message>
            <source>{provider} (provider removed)</source>
            <translation>{provider}（模型服务已移除）</translation>
        </message>
    </context>
    <context>
        <name>GroupedThreadModel</name>
        <message>
            <source>New chat</source>
            <translation>新对话</translation>
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
        <name>HistoryActions</name>
        <message>
            <source>{n} conversation(s) moved to the trash.</source>
            <translation>已将 {n} 个对话移到回收站。</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>撤销</translation>
        </message>
        <message>
            <source>Delete {n} conversation(s) forever? This cannot be undone.</source>
            <translation>永久删除 {n} 个对话？此操作无法撤销。</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>永久删除</translation>
        </message>
        <message>
            <source>Empty the trash? {n} conversation(s) will be deleted forever.</source>
            <translation>清空回收站？{n} 个对话将被永久删除。</translation>
        </message>
        <message>
            <source>Empty trash</source>
            <translation>清空回收站</translation>
        </message>
    </context>
    <context>
        <name>ImageActions</name>
        <message>
            <source>Answers are illustrated in a conversation with a role: choose one in the header.</source>
            <translation>只有设置了角色的对话才会为回答配图：请在标题栏选择一个角色。</translation>
        </message>
        <message>
            <source>Answers from a knowledge base are not illustrated.</source>
            <translation>来自知识库的回答不会配图。</translation>
        </message>
        <message>
            <source>Illustrate answers</source>
            <translation>为回答配图</translation>
        </message>
        <message>
            <source>Draw a picture for each new answer with the image model chosen in Settings (a conversation with a role, without a knowledge base)</source>
            <translation>用设置中选择的图像模型为每条新回答画一张图（需设置角色，且未绑定知识库）</translation>
        </message>
        <message>
            <source>Illustrate again</source>
            <translation>重新配图</translation>
        </message>
        <message>
            <source>Illustrate</source>
            <translation>配图</translation>
        </message>
        <message>
            <source>Save the picture</source>
            <translation>保存图片</translation>
        </message>
        <message>
            <source>Images (*.png *.jpg *.webp *.gif)</source>
            <translation>图片 (*.png *.jpg *.webp *.gif)</translation>
        </message>
        <message>
            <source>No program to show pictures was found. Use Save… to keep the file.</source>
            <translation>没有找到可以显示图片的程序。可用“保存…”保留该文件。</translation>
        </message>
    </context>
    <context>
        <name>ImageCard</name>
        <message>
            <source>The picture cannot be shown.</source>
            <translation>无法显示这张图片。</translation>
        </message>
        <message>
            <source>Drawing an image…</source>
            <translation>正在生成图片…</translation>
        </message>
        <message>
            <source>No image: {0}</source>
            <translation>未生成图片：{0}</translation>
        </message>
        <message>
            <source>Image · {0}×{1} · {2}</source>
            <translation>图片 · {0}×{1} · {2}</translation>
        </message>
        <message>
            <source>Open</source>
            <translation>打开</translation>
        </message>
        <message>
            <source>Open with the system's image viewer</source>
            <translation>用系统的图片查看器打开</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>保存…</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Drawing it again failed: {0}</source>
            <translation>重新绘制失败：{0}</translation>
        </message>
    </context>
    <context>
        <name>ImportConversations</name>
        <message>
            <source>Import conversations…</source>
            <translation>导入对话…</translation>
        </message>
        <message>
            <source>Import a Mira JSON export or a ChatGPT conversations.json</source>
            <translation>导入 Mira JSON 导出文件或 ChatGPT 的 conversations.json</translation>
        </message>
        <message>
            <source>Import conversations</source>
            <translation>导入对话</translation>
        </message>
        <message>
            <source>Conversation exports (*.json *.zip);;All files (*)</source>
            <translation>对话导出文件 (*.json *.zip);;所有文件 (*)</translation>
        </message>
        <message>
            <source>Importing conversations</source>
            <translation>正在导入对话</translation>
        </message>
        <message>
            <source>Import failed</source>
            <translation>导入失败</translation>
        </message>
        <message>
            <source>Imported {n} conversations, skipped {m} (already imported)</source>
            <translation>已导入 {n} 个对话，跳过 {m} 个（之前已导入）</translation>
        </message>
        <message>
            <source>Attached files not in the export: {k} (their names are kept).</source>
            <translation>导出文件中缺少的附件：{k} 个（已保留名称）。</translation>
        </message>
        <message>
            <source>Imported {n} conversations, skipped {m}: {reasons}</source>
            <translation>已导入 {n} 个对话，跳过 {m} 个：{reasons}</translation>
        </message>
        <message>
            <source>Imported {n} conversations, skipped {m}</source>
            <translation>已导入 {n} 个对话，跳过 {m} 个</translation>
        </message>
        <message>
            <source>; </source>
            <translation>；</translation>
        </message>
        <message>
            <source>{reason} ({count})</source>
            <translation>{reason}（{count} 个）</translation>
        </message>
        <message>
            <source>Added {k} new messages to {t} conversations imported before.</source>
            <translation>向之前导入的 {t} 个对话添加了 {k} 条新消息。</translation>
        </message>
    </context>
    <context>
        <name>KbActions</name>
        <message>
            <source>Knowledge bases…</source>
            <translation>知识库…</translation>
        </message>
        <message>
            <source>Create knowledge bases, add documents, and answer from them with sources</source>
            <translation>创建知识库、添加文档，并据此回答、附带来源</translation>
        </message>
    </context>
    <context>
        <name>KbPickerButton</name>
        <message>
            <source>No knowledge base</source>
            <translation>无知识库</translation>
        </message>
        <message>
            <source>{name} ({count} documents)</source>
            <translation>{name}（{count} 个文档）</translation>
        </message>
        <message>
            <source>Manage knowledge bases…</source>
            <translation>管理知识库…</translation>
        </message>
        <message>
            <source>Knowledge base: none. Choose one to answer from your documents.</source>
            <translation>知识库：无。选择一个即可根据你的文档回答。</translation>
        </message>
        <message>
            <source>KB: {0}</source>
            <translation>知识库：{0}</translation>
        </message>
        <message>
            <source>Answers come from the knowledge base “{0}”, with sources.</source>
            <translation>回答来自知识库“{0}”，并附带来源。</translation>
        </message>
        <message>
            <source>{name} (1 document)</source>
            <translation>{name}（1 个文档）</translation>
        </message>
    </context>
    <context>
        <name>KnowledgeBaseDialog</name>
        <message>
            <source>Created “{0}”. Add files or a folder below.</source>
            <translation>已创建“{0}”。请在下方添加文件或文件夹。</translation>
        </message>
        <message>
            <source>Renamed to “{0}”.</source>
            <translation>已重命名为“{0}”。</translation>
        </message>
        <message>
            <source>Delete the knowledge base “{name}” and its {count} documents from Mira? The files themselves stay where they are. Threads that use it keep their whole history; they just stop answering from it.</source>
            <translation>要从 Mira 中删除知识库“{name}”及其 {count} 个文档吗？文件本身仍保留在原处。使用它的对话会保留全部历史，只是不再根据它回答。</translation>
        </message>
        <message>
            <source>Delete knowledge base</source>
            <translation>删除知识库</translation>
        </message>
        <message>
            <source>Deleted “{name}”. {count} thread(s) keep their history.</source>
            <translation>已删除“{name}”。{count} 个对话保留了历史。</translation>
        </message>
        <message>
            <source>Embedding passages…</source>
            <translation>正在嵌入段落…</translation>
        </message>
        <message>
            <source>Keyword search only for this knowledge base.</source>
            <translation>此知识库改为仅关键词检索。</translation>
        </message>
        <message>
            <source>Knowledge bases</source>
            <translation>知识库</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Documents</source>
            <translation>文档</translation>
        </message>
        <message>
            <source>Passages</source>
            <translation>段落</translation>
        </message>
        <message>
            <source>Index size</source>
            <translation>索引大小</translation>
        </message>
        <message>
            <source>Name of a new knowledge base</source>
            <translation>新知识库的名称</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>创建</translation>
        </message>
        <message>
            <source>Rename…</source>
            <translation>重命名…</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>删除…</translation>
        </message>
    </context>
    <context>
        <name>MadeMediaRow</name>
        <message>
            <source>Save…</source>
            <translation>保存…</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>重试</translation>
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
        <message>
            <source>&amp;Edit</source>
            <translation>编辑(&amp;E)</translation>
        </message>
        <message>
            <source>Undo last turn</source>
            <translation>撤销上一轮</translation>
        </message>
        <message>
            <source>Move the last question and its answer to the trash (restorable)</source>
            <translation>把最后的提问和回答移到回收站（可恢复）</translation>
        </message>
        <message>
            <source>Check data…</source>
            <translation>检查数据…</translation>
        </message>
        <message>
            <source>{n} answer(s) could not be saved because the disk was full. To keep them, free some space and open their chats before quitting.

Quit anyway and lose them?</source>
            <translation>有 {n} 条回答因磁盘已满未能保存。要保留它们，请先腾出一些空间，并在退出前打开它们所在的对话。

仍要退出并丢失这些回答吗？</translation>
        </message>
        <message>
            <source>Answers not saved</source>
            <translation>回答未保存</translation>
        </message>
        <message>
            <source>Restore undone turn</source>
            <translation>恢复已撤销的一轮</translation>
        </message>
        <message>
            <source>Bring back the turn undone last in this chat (again for the one before)</source>
            <translation>恢复此对话中最近撤销的一轮（再次执行可恢复更早的一轮）</translation>
        </message>
    </context>
    <context>
        <name>MentionController</name>
        <message>
            <source>Files matching “{0}”</source>
            <translation>匹配“{0}”的文件</translation>
        </message>
        <message>
            <source>This workspace has no folder to search. Choose one in the workspace's settings (right-click it in the sidebar → Edit).</source>
            <translation>此工作区没有可搜索的文件夹。请在工作区设置中选择一个（在侧栏中右键点击它 → 编辑）。</translation>
        </message>
        <message>
            <source>No files match.</source>
            <translation>没有匹配的文件。</translation>
        </message>
        <message>
            <source>Recently changed files</source>
            <translation>最近修改的文件</translation>
        </message>
        <message>
            <source>The folder has no files.</source>
            <translation>文件夹里没有文件。</translation>
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
        <name>MeterPopup</name>
        <message>
            <source>Context</source>
            <translation>上下文</translation>
        </message>
        <message>
            <source>Current tokens</source>
            <translation>当前 tokens</translation>
        </message>
        <message>
            <source>Peak tokens</source>
            <translation>峰值 tokens</translation>
        </message>
        <message>
            <source>Context window</source>
            <translation>上下文窗口</translation>
        </message>
        <message>
            <source>Remaining</source>
            <translation>剩余</translation>
        </message>
        <message>
            <source>unknown</source>
            <translation>未知</translation>
        </message>
        <message>
            <source>({0} %)</source>
            <translation>（{0}%）</translation>
        </message>
        <message>
            <source>Measuring…</source>
            <translation>正在统计…</translation>
        </message>
        <message>
            <source>The model's context window is not set. Set it in Settings → Models to see how full the context is.</source>
            <translation>尚未设置该模型的上下文窗口。请在“设置 → 模型”中设置，以查看上下文的使用情况。</translation>
        </message>
        <message>
            <source>The context is nearly full. Type /compact to summarise it.</source>
            <translation>上下文快满了。输入 /compact 可将其压缩为摘要。</translation>
        </message>
    </context>
    <context>
        <name>MissingFolder</name>
        <message>
            <source>Mira's data folder is not there</source>
            <translation>找不到 Mira 的数据文件夹</translation>
        </message>
        <message>
            <source>The data folder chosen in Settings is not there:
{0}</source>
            <translation>设置中选择的数据文件夹不存在：
{0}</translation>
        </message>
        <message>
            <source>If it is on a drive or a network share, connect it and choose Try again. The default folder can be used this time instead; your choice stays for the next start.</source>
            <translation>如果它位于外接驱动器或网络共享上，请连接后选择“重试”。也可以这次改用默认文件夹；你的选择会保留到下次启动。</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Use the default folder this time</source>
            <translation>这次使用默认文件夹</translation>
        </message>
        <message>
            <source>Quit</source>
            <translation>退出</translation>
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
        <message>
            <source>No models — fetch them in Settings → Providers</source>
            <translation>没有模型 — 请在“设置 → 模型服务”中获取</translation>
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
        <message>
            <source>Server's default</source>
            <translation>服务器默认</translation>
        </message>
        <message>
            <source>Low</source>
            <translation>低</translation>
        </message>
        <message>
            <source>Medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>High</source>
            <translation>高</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>推理强度</translation>
        </message>
        <message>
            <source>Sent as “think”: off turns a thinking model's reasoning off, a level turns it on (gpt-oss takes the level itself; it cannot stop, off is low).</source>
            <translation>以 “think” 发送：关闭即关掉思考模型的推理，选择档位即打开（gpt-oss 直接接收档位；它无法不思考，关闭即为低）。</translation>
        </message>
        <message>
            <source>Sent as “reasoning_effort” (reasoning models, gpt-oss). These servers share no way to turn reasoning off: off is sent as low.</source>
            <translation>以 “reasoning_effort” 发送（推理模型、gpt-oss）。这类服务器没有通用的关闭推理方式：关闭会以“低”发送。</translation>
        </message>
        <message>
            <source>Extended thinking with a budget of 2,048 / 8,192 / 16,384 tokens, added to the answer's room (Claude 4.6 and later: adaptive thinking at that effort). Off, or the default: no thinking.</source>
            <translation>扩展思考，预算为 2,048 / 8,192 / 16,384 个 token，另加在回答的额度上（Claude 4.6 及以后：按该强度自适应思考）。关闭或默认：不思考。</translation>
        </message>
    </context>
    <context>
        <name>NoticeBar</name>
        <message>
            <source>Dismiss</source>
            <translation>关闭</translation>
        </message>
    </context>
    <context>
        <name>PlanActions</name>
        <message>
            <source>Implement plan</source>
            <translation>执行计划</translation>
        </message>
        <message>
            <source>Keep planning</source>
            <translation>继续规划</translation>
        </message>
    </context>
    <context>
        <name>PlanTitle</name>
        <message>
            <source>Proposed plan</source>
            <translation>建议的计划</translation>
        </message>
    </context>
    <context>
        <name>ProgressPanel</name>
        <message>
            <source>Progress · {0} of {1}</source>
            <translation>进度 · {0}/{1}</translation>
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
        <message>
            <source>Removed when you save</source>
            <translation>保存时删除</translation>
        </message>
        <message>
            <source>Remove the saved key</source>
            <translation>删除已保存的密钥</translation>
        </message>
        <message>
            <source>Delete this provider's API key when you save (to use it without one)</source>
            <translation>保存时删除此服务的 API 密钥（之后不用密钥访问它）</translation>
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
        <message>
            <source>the file {path} (readable only by you; no system keyring was found)</source>
            <translation>文件 {path}（仅你可读；未找到系统密钥环）</translation>
        </message>
        <message>
            <source>The base URL now points to another server ({host}). Keep sending the API key saved for “{name}” there?

Yes keeps the key; No removes it (type the new server's key if it needs one).</source>
            <translation>服务地址现在指向另一台服务器（{host}）。还要把为“{name}”保存的 API 密钥发送到那里吗？

“是”保留密钥；“否”删除密钥（如果新服务器需要密钥，请输入它的密钥）。</translation>
        </message>
        <message>
            <source>Keep the API key?</source>
            <translation>保留 API 密钥？</translation>
        </message>
        <message>
            <source>the new provider</source>
            <translation>新的模型服务</translation>
        </message>
        <message>
            <source>“{name}” has no models yet. Pull one in a terminal (for example `ollama pull llama3.2`), then click Fetch models.</source>
            <translation>“{name}”还没有模型。请在终端中拉取一个（例如 `ollama pull llama3.2`），然后点击“获取模型”。</translation>
        </message>
        <message>
            <source>“{name}” lists no models. Load or enable a model on the server, then click Fetch models.</source>
            <translation>“{name}”没有列出任何模型。请在服务器上加载或启用一个模型，然后点击“获取模型”。</translation>
        </message>
    </context>
    <context>
        <name>QuestionForm</name>
        <message>
            <source>Pick an option or type your answer</source>
            <translation>选择一个选项，或输入你的回答</translation>
        </message>
        <message>
            <source>Type your answer</source>
            <translation>输入你的回答</translation>
        </message>
        <message>
            <source>Send answers</source>
            <translation>发送回答</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>忽略</translation>
        </message>
    </context>
    <context>
        <name>ReasoningActions</name>
        <message>
            <source>How hard {model} reasons before it answers (Settings → Models too)</source>
            <translation>{model} 回答前推理的强度（也可在 设置 → 模型 中更改）</translation>
        </message>
        <message>
            <source>Reasoning effort</source>
            <translation>推理强度</translation>
        </message>
        <message>
            <source>Server's default</source>
            <translation>服务器默认</translation>
        </message>
        <message>
            <source>Off</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>Low</source>
            <translation>低</translation>
        </message>
        <message>
            <source>Medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>High</source>
            <translation>高</translation>
        </message>
        <message>
            <source>Reasoning effort of {model}</source>
            <translation>{model} 的推理强度</translation>
        </message>
    </context>
    <context>
        <name>RegenerateButton</name>
        <message>
            <source>Regenerate</source>
            <translation>重新生成</translation>
        </message>
        <message>
            <source>Answer again as a new version</source>
            <translation>重新回答，作为一个新版本</translation>
        </message>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>More concise</source>
            <translation>更简洁</translation>
        </message>
        <message>
            <source>More detailed</source>
            <translation>更详细</translation>
        </message>
        <message>
            <source>More creative</source>
            <translation>更有创意</translation>
        </message>
        <message>
            <source>Custom guidance…</source>
            <translation>自定义要求…</translation>
        </message>
        <message>
            <source>Think harder</source>
            <translation>更深入地思考</translation>
        </message>
    </context>
    <context>
        <name>RichTextView</name>
        <message>
            <source>Copied</source>
            <translation>已复制</translation>
        </message>
    </context>
    <context>
        <name>RoleDialog</name>
        <message>
            <source>Duplicated.</source>
            <translation>已复制。</translation>
        </message>
        <message>
            <source>Delete the role “{0}”? Threads that use it keep their whole history; they simply have no role any more.</source>
            <translation>删除角色“{0}”？使用它的对话会保留全部历史，只是不再有角色。</translation>
        </message>
        <message>
            <source>Delete role</source>
            <translation>删除角色</translation>
        </message>
        <message>
            <source>Deleted. Threads that used it ({0}) keep their history.</source>
            <translation>已删除。使用它的对话（{0} 个）保留了历史。</translation>
        </message>
        <message>
            <source>Role created.</source>
            <translation>已创建角色。</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>A new role: fill in a name, then Save.</source>
            <translation>新角色：填写名称后点击“保存”。</translation>
        </message>
        <message>
            <source>Roles</source>
            <translation>角色</translation>
        </message>
        <message>
            <source>New</source>
            <translation>新建</translation>
        </message>
        <message>
            <source>Duplicate</source>
            <translation>复制</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>删除…</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>the new role</source>
            <translation>新角色</translation>
        </message>
    </context>
    <context>
        <name>RoleForm</name>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Description</source>
            <translation>描述</translation>
        </message>
        <message>
            <source>Persona</source>
            <translation>人设</translation>
        </message>
        <message>
            <source>World view</source>
            <translation>世界观</translation>
        </message>
        <message>
            <source>Scenario</source>
            <translation>场景</translation>
        </message>
        <message>
            <source>Examples</source>
            <translation>示例</translation>
        </message>
        <message>
            <source>Style</source>
            <translation>风格</translation>
        </message>
        <message>
            <source>Constraints</source>
            <translation>约束</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>温度</translation>
        </message>
        <message>
            <source>Top-p</source>
            <translation>Top-p</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>最大 tokens</translation>
        </message>
        <message>
            <source>Model default</source>
            <translation>模型默认</translation>
        </message>
        <message>
            <source>e.g. Patient tutor</source>
            <translation>例如：耐心的导师</translation>
        </message>
        <message>
            <source>What this role is for (shown in lists)</source>
            <translation>这个角色的用途（显示在列表中）</translation>
        </message>
        <message>
            <source>Who the assistant is, in a few lines</source>
            <translation>用几行话描述助手是谁</translation>
        </message>
        <message>
            <source>Sample exchanges showing the tone</source>
            <translation>体现语气的示例对话</translation>
        </message>
        <message>
            <source>What it must or must not do</source>
            <translation>必须做或不能做的事</translation>
        </message>
        <message>
            <source>Parameters</source>
            <translation>参数</translation>
        </message>
    </context>
    <context>
        <name>RolePickerButton</name>
        <message>
            <source>No role</source>
            <translation>无角色</translation>
        </message>
        <message>
            <source>Manage roles…</source>
            <translation>管理角色…</translation>
        </message>
        <message>
            <source>Role: none. Choose one to give the assistant a persona.</source>
            <translation>角色：无。选择一个角色，为助手设定人设。</translation>
        </message>
        <message>
            <source>Role: {0}</source>
            <translation>角色：{0}</translation>
        </message>
    </context>
    <context>
        <name>SearchDialog</name>
        <message>
            <source>Type to search titles and messages.</source>
            <translation>输入文字以搜索标题和消息。</translation>
        </message>
        <message>
            <source>Searching…</source>
            <translation>正在搜索…</translation>
        </message>
        <message>
            <source>Search failed: {reason}</source>
            <translation>搜索失败：{reason}</translation>
        </message>
        <message>
            <source>{n} result(s) · ↑↓ to move · Enter to open · Esc to close</source>
            <translation>{n} 条结果 · ↑↓ 选择 · Enter 打开 · Esc 关闭</translation>
        </message>
        <message>
            <source>No conversation matches “{query}”.</source>
            <translation>没有与“{query}”匹配的对话。</translation>
        </message>
        <message>
            <source>Search conversations</source>
            <translation>搜索对话</translation>
        </message>
        <message>
            <source>Search titles and messages…</source>
            <translation>搜索标题和消息…</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>今天</translation>
        </message>
        <message>
            <source>This week</source>
            <translation>本周</translation>
        </message>
        <message>
            <source>This month</source>
            <translation>本月</translation>
        </message>
        <message>
            <source>This quarter</source>
            <translation>本季度</translation>
        </message>
        <message>
            <source>All workspaces</source>
            <translation>全部工作区</translation>
        </message>
        <message>
            <source>Include archived</source>
            <translation>包含已归档</translation>
        </message>
        <message>
            <source>Match in the title</source>
            <translation>标题匹配</translation>
        </message>
    </context>
    <context>
        <name>SendConfirmBar</name>
        <message>
            <source>Send anyway</source>
            <translation>仍然发送</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
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
        <message>
            <source>Chat &amp; data</source>
            <translation>对话与数据</translation>
        </message>
        <message>
            <source>Chat &amp;&amp; data</source>
            <translation>对话与数据</translation>
        </message>
        <message>
            <source>Agent</source>
            <translation>智能体</translation>
        </message>
    </context>
    <context>
        <name>SingleInstance</name>
        <message>
            <source>Received 1 file</source>
            <translation>已收到 1 个文件</translation>
        </message>
        <message>
            <source>Received {count} files</source>
            <translation>已收到 {count} 个文件</translation>
        </message>
    </context>
    <context>
        <name>SourceEntry</name>
        <message>
            <source>Open {0}</source>
            <translation>打开 {0}</translation>
        </message>
        <message>
            <source>Could not open {0}</source>
            <translation>无法打开 {0}</translation>
        </message>
    </context>
    <context>
        <name>SourcesWidget</name>
        <message>
            <source>page {0}</source>
            <translation>第 {0} 页</translation>
        </message>
        <message>
            <source>slide {0} (notes)</source>
            <translation>第 {0} 张幻灯片（备注）</translation>
        </message>
        <message>
            <source>slide {0}</source>
            <translation>第 {0} 张幻灯片</translation>
        </message>
        <message>
            <source>sheet {0}</source>
            <translation>工作表 {0}</translation>
        </message>
        <message>
            <source>line {0}</source>
            <translation>第 {0} 行</translation>
        </message>
        <message>
            <source>paragraph {0}</source>
            <translation>第 {0} 段</translation>
        </message>
        <message>
            <source>knowledge base</source>
            <translation>知识库</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>来源</translation>
        </message>
        <message>
            <source>Show cited only</source>
            <translation>只看引用的来源</translation>
        </message>
        <message>
            <source>Show all {0}</source>
            <translation>显示全部 {0} 个</translation>
        </message>
        <message>
            <source>The knowledge base “{0}” has no documents yet, so no model was asked. Add documents in File → Knowledge bases…</source>
            <translation>知识库“{0}”还没有文档，因此没有询问模型。请在“文件 → 知识库…”中添加文档。</translation>
        </message>
        <message>
            <source>The knowledge base “{0}” was not searched: the message has no text question.</source>
            <translation>未检索知识库“{0}”：这条消息没有文字问题。</translation>
        </message>
        <message>
            <source>Searched the knowledge base “{0}”: no passage matched.</source>
            <translation>已检索知识库“{0}”：没有匹配的段落。</translation>
        </message>
        <message>
            <source>Answered from the knowledge base “{0}”</source>
            <translation>根据知识库“{0}”回答</translation>
        </message>
        <message>
            <source>The agent searched the knowledge base “{0}”: no passage matched.</source>
            <translation>智能体检索了知识库“{0}”：没有匹配的段落。</translation>
        </message>
        <message>
            <source>The agent searched the knowledge base “{0}”</source>
            <translation>智能体检索了知识库“{0}”</translation>
        </message>
        <message>
            <source>The agent searched the knowledge base “{0}”: it has no documents yet.</source>
            <translation>智能体检索了知识库“{0}”：其中还没有文档。</translation>
        </message>
    </context>
    <context>
        <name>SpeechActions</name>
        <message>
            <source>Read aloud again</source>
            <translation>重新朗读</translation>
        </message>
        <message>
            <source>Read aloud</source>
            <translation>朗读</translation>
        </message>
        <message>
            <source>No program to play audio was found. Use Save… to keep the file.</source>
            <translation>没有找到可以播放音频的程序。可用“保存…”保留该文件。</translation>
        </message>
        <message>
            <source>Save the spoken answer</source>
            <translation>保存朗读音频</translation>
        </message>
        <message>
            <source>WAV audio (*.wav)</source>
            <translation>WAV 音频 (*.wav)</translation>
        </message>
        <message>
            <source>Saved {0}</source>
            <translation>已保存 {0}</translation>
        </message>
        <message>
            <source>Read answers aloud</source>
            <translation>朗读回答</translation>
        </message>
        <message>
            <source>Speak each new answer of this conversation with the system voice</source>
            <translation>用系统语音朗读此对话的每条新回答</translation>
        </message>
    </context>
    <context>
        <name>SpeechBar</name>
        <message>
            <source>Reading aloud…</source>
            <translation>正在朗读…</translation>
        </message>
        <message>
            <source>Not read aloud: {0}</source>
            <translation>未能朗读：{0}</translation>
        </message>
        <message>
            <source>Spoken answer · {0}</source>
            <translation>朗读音频 · {0}</translation>
        </message>
        <message>
            <source>the first part</source>
            <translation>仅开头部分</translation>
        </message>
        <message>
            <source>Only the first {0} characters were read aloud.</source>
            <translation>只朗读了前 {0} 个字符。</translation>
        </message>
        <message>
            <source>Play</source>
            <translation>播放</translation>
        </message>
        <message>
            <source>Play with the system's audio player</source>
            <translation>用系统的音频播放器播放</translation>
        </message>
        <message>
            <source>Save…</source>
            <translation>保存…</translation>
        </message>
        <message>
            <source>Save the audio as a WAV file</source>
            <translation>将音频保存为 WAV 文件</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Reading it again failed: {0}</source>
            <translation>重新朗读失败：{0}</translation>
        </message>
    </context>
    <context>
        <name>StatusBox</name>
        <message>
            <source>Retry</source>
            <translation>重试</translation>
        </message>
        <message>
            <source>Answer again with the chat's current model</source>
            <translation>用此对话当前的模型重新回答</translation>
        </message>
        <message>
            <source>Retry works once this chat has stopped answering (not in the trash)</source>
            <translation>此对话停止回答后才能重试（回收站中的对话不能重试）</translation>
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
        <message>
            <source>Wait a moment and retry.</source>
            <translation>请稍等片刻再重试。</translation>
        </message>
        <message>
            <source>Wait {seconds} s and retry.</source>
            <translation>请等待 {seconds} 秒后重试。</translation>
        </message>
        <message>
            <source>Wait {minutes} min and retry.</source>
            <translation>请等待 {minutes} 分钟后重试。</translation>
        </message>
        <message>
            <source>Wait {hours} h and retry.</source>
            <translation>请等待 {hours} 小时后重试。</translation>
        </message>
        <message>
            <source>Wait {days} days and retry.</source>
            <translation>请等待 {days} 天后重试。</translation>
        </message>
    </context>
    <context>
        <name>SummaryDialog</name>
        <message>
            <source>Loading…</source>
            <translation>正在加载…</translation>
        </message>
        <message>
            <source>Generating a summary…</source>
            <translation>正在生成摘要…</translation>
        </message>
        <message>
            <source>Saving…</source>
            <translation>正在保存…</translation>
        </message>
        <message>
            <source>Saved.</source>
            <translation>已保存。</translation>
        </message>
        <message>
            <source>Clearing…</source>
            <translation>正在清除…</translation>
        </message>
        <message>
            <source>Cleared.</source>
            <translation>已清除。</translation>
        </message>
        <message>
            <source>No summary yet. Generate one from the conversation, or write it above.</source>
            <translation>还没有摘要。可以根据对话生成，也可以在上方手动填写。</translation>
        </message>
        <message>
            <source>Updated {0} · up to date</source>
            <translation>更新于 {0} · 已是最新</translation>
        </message>
        <message>
            <source>Updated {0} · {1} newer message(s) not in it</source>
            <translation>更新于 {0} · 有 {1} 条更新的消息未包含在内</translation>
        </message>
        <message>
            <source>Context summary</source>
            <translation>上下文摘要</translation>
        </message>
        <message>
            <source>The summary is sent to the model with every message of this thread, after the role. It is never shown in the chat.</source>
            <translation>摘要会在角色之后，随本对话的每条消息一起发送给模型；它不会显示在聊天中。</translation>
        </message>
        <message>
            <source>Key facts, decisions and names to remember…</source>
            <translation>需要记住的关键事实、决定和名称…</translation>
        </message>
        <message>
            <source>Generate</source>
            <translation>生成</translation>
        </message>
        <message>
            <source>Summarise the conversation with the thread's model</source>
            <translation>用本对话的模型总结对话</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Clear</source>
            <translation>清除</translation>
        </message>
    </context>
    <context>
        <name>SystemCardWidget</name>
        <message>
            <source>Hide the summary</source>
            <translation>收起摘要</translation>
        </message>
        <message>
            <source>Show the summary</source>
            <translation>展开摘要</translation>
        </message>
        <message>
            <source>Instructions: {0}</source>
            <translation>指令：{0}</translation>
        </message>
        <message>
            <source>Context compressed</source>
            <translation>上下文已压缩</translation>
        </message>
        <message>
            <source>Note</source>
            <translation>备注</translation>
        </message>
        <message>
            <source>by /compact</source>
            <translation>由 /compact 生成</translation>
        </message>
        <message>
            <source>automatically</source>
            <translation>自动</translation>
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
        <message>
            <source>{0}s</source>
            <translation>{0}秒</translation>
        </message>
        <message>
            <source>{0}m {1}s</source>
            <translation>{0}分{1}秒</translation>
        </message>
        <message>
            <source>Thought for a moment</source>
            <translation>思考了片刻</translation>
        </message>
    </context>
    <context>
        <name>ThreadActions</name>
        <message>
            <source>Export as Markdown…</source>
            <translation>导出为 Markdown…</translation>
        </message>
        <message>
            <source>Export as HTML…</source>
            <translation>导出为 HTML…</translation>
        </message>
        <message>
            <source>Export as JSON…</source>
            <translation>导出为 JSON…</translation>
        </message>
        <message>
            <source>Copy to clipboard</source>
            <translation>复制到剪贴板</translation>
        </message>
        <message>
            <source>Print…</source>
            <translation>打印…</translation>
        </message>
        <message>
            <source>Save as PDF…</source>
            <translation>另存为 PDF…</translation>
        </message>
        <message>
            <source>Download as .md…</source>
            <translation>下载为 .md…</translation>
        </message>
        <message>
            <source>Save to workspace</source>
            <translation>保存到工作区</translation>
        </message>
        <message>
            <source>Export failed</source>
            <translation>导出失败</translation>
        </message>
        <message>
            <source>Markdown (*.md)</source>
            <translation>Markdown (*.md)</translation>
        </message>
        <message>
            <source>HTML (*.html)</source>
            <translation>HTML (*.html)</translation>
        </message>
        <message>
            <source>JSON (*.json)</source>
            <translation>JSON (*.json)</translation>
        </message>
        <message>
            <source>Export conversation</source>
            <translation>导出对话</translation>
        </message>
        <message>
            <source>Exported to {path}</source>
            <translation>已导出到 {path}</translation>
        </message>
        <message>
            <source>Conversation copied as Markdown</source>
            <translation>已将对话以 Markdown 格式复制</translation>
        </message>
        <message>
            <source>Copy failed</source>
            <translation>复制失败</translation>
        </message>
        <message>
            <source>Print failed</source>
            <translation>打印失败</translation>
        </message>
        <message>
            <source>Print preview</source>
            <translation>打印预览</translation>
        </message>
        <message>
            <source>Saving the PDF failed</source>
            <translation>保存 PDF 失败</translation>
        </message>
        <message>
            <source>Save as PDF</source>
            <translation>另存为 PDF</translation>
        </message>
        <message>
            <source>PDF (*.pdf)</source>
            <translation>PDF (*.pdf)</translation>
        </message>
        <message>
            <source>Saved to {path}</source>
            <translation>已保存到 {path}</translation>
        </message>
        <message>
            <source>Download failed</source>
            <translation>下载失败</translation>
        </message>
        <message>
            <source>Download message</source>
            <translation>下载消息</translation>
        </message>
        <message>
            <source>Could not save to the workspace</source>
            <translation>无法保存到工作区</translation>
        </message>
    </context>
    <context>
        <name>ThreadGroups</name>
        <message>
            <source>en_US</source>
            <translation>zh_CN</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>置顶</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>今天</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>昨天</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>过去 7 天</translation>
        </message>
        <message>
            <source>Previous 30 days</source>
            <translation>过去 30 天</translation>
        </message>
        <message>
            <source>MMMM yyyy</source>
            <translation>yyyy年M月</translation>
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
        <name>ThreadMenu</name>
        <message>
            <source>Restore</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Delete forever…</source>
            <translation>永久删除…</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>重命名</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>取消置顶</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>置顶</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>取消归档</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>归档</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Move to</source>
            <translation>移动到</translation>
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
            <source>Conversations</source>
            <translation>对话列表</translation>
        </message>
        <message>
            <source>No conversations yet.
Your chats will appear here.</source>
            <translation>还没有对话。
你的聊天记录会显示在这里。</translation>
        </message>
        <message>
            <source>The trash is empty.</source>
            <translation>回收站是空的。</translation>
        </message>
        <message>
            <source>No archived conversations.</source>
            <translation>没有已归档的对话。</translation>
        </message>
        <message>
            <source>No conversations in this workspace yet.</source>
            <translation>这个工作区还没有对话。</translation>
        </message>
        <message>
            <source>Search…</source>
            <translation>搜索…</translation>
        </message>
        <message>
            <source>Search all conversations (Ctrl+K)</source>
            <translation>搜索全部对话 (Ctrl+K)</translation>
        </message>
        <message>
            <source>Workspaces</source>
            <translation>工作区</translation>
        </message>
        <message>
            <source>New workspace…</source>
            <translation>新建工作区…</translation>
        </message>
        <message>
            <source>Search conversations</source>
            <translation>搜索对话</translation>
        </message>
        <message>
            <source>Search chats…</source>
            <translation>搜索对话…</translation>
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
        <message>
            <source>Retry escalated to {model} ({tier} tier) from {previous}.</source>
            <translation>重试已从 {previous} 升级到 {model}（{tier}档）。</translation>
        </message>
        <message>
            <source>Retry escalated to {model} from {previous}.</source>
            <translation>重试已从 {previous} 升级到 {model}。</translation>
        </message>
        <message>
            <source>fast</source>
            <translation>快速</translation>
        </message>
        <message>
            <source>standard</source>
            <translation>标准</translation>
        </message>
        <message>
            <source>reasoning</source>
            <translation>推理</translation>
        </message>
        <message>
            <source>Reasoning effort: {0}</source>
            <translation>推理强度：{0}</translation>
        </message>
        <message>
            <source>off</source>
            <translation>关闭</translation>
        </message>
        <message>
            <source>low</source>
            <translation>低</translation>
        </message>
        <message>
            <source>medium</source>
            <translation>中</translation>
        </message>
        <message>
            <source>high</source>
            <translation>高</translation>
        </message>
        <message>
            <source>The model stopped at its length limit: this answer is cut off. Ask it to go on, or give the thread a role with a larger maximum length.</source>
            <translation>模型在长度上限处停止：这条回答不完整。可以让它继续，或为对话设置一个最大长度更大的角色。</translation>
        </message>
    </context>
    <context>
        <name>TimelineView</name>
        <message>
            <source>Conversation</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>The messages of this chat; Page Up and Page Down scroll it</source>
            <translation>此对话的消息；Page Up 和 Page Down 可滚动</translation>
        </message>
    </context>
    <context>
        <name>ToolCardView</name>
        <message>
            <source>Approve</source>
            <translation>批准</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>拒绝</translation>
        </message>
        <message>
            <source>Roll back</source>
            <translation>回滚</translation>
        </message>
        <message>
            <source>Put back the files this step changed</source>
            <translation>恢复此步骤修改的文件</translation>
        </message>
        <message>
            <source>Rolled back</source>
            <translation>已回滚</translation>
        </message>
        <message>
            <source>Waiting for your approval</source>
            <translation>等待你的批准</translation>
        </message>
        <message>
            <source>Running…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>完成</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>失败</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>已拒绝</translation>
        </message>
        <message>
            <source>Not run</source>
            <translation>未运行</translation>
        </message>
        <message>
            <source>Approved · done</source>
            <translation>已批准 · 完成</translation>
        </message>
        <message>
            <source>… {0} more lines</source>
            <translation>… 还有 {0} 行</translation>
        </message>
        <message>
            <source>Create {path} (1 line)</source>
            <translation>新建 {path}（1 行）</translation>
        </message>
        <message>
            <source>Create {path} ({n} lines)</source>
            <translation>新建 {path}（{n} 行）</translation>
        </message>
        <message>
            <source>Overwrite {path} (1 line)</source>
            <translation>覆盖 {path}（1 行）</translation>
        </message>
        <message>
            <source>Overwrite {path} ({n} lines)</source>
            <translation>覆盖 {path}（{n} 行）</translation>
        </message>
        <message>
            <source>Edit {path}: 1 replacement</source>
            <translation>编辑 {path}（1 处替换）</translation>
        </message>
        <message>
            <source>Edit {path}: {n} replacements</source>
            <translation>编辑 {path}（{n} 处替换）</translation>
        </message>
        <message>
            <source>Read {path}</source>
            <translation>读取 {path}</translation>
        </message>
        <message>
            <source>Read {path} from line {n}</source>
            <translation>从第 {n} 行读取 {path}</translation>
        </message>
        <message>
            <source>List {path}</source>
            <translation>列出 {path}</translation>
        </message>
        <message>
            <source>Find {pattern} in {path}</source>
            <translation>在 {path} 中查找 {pattern}</translation>
        </message>
        <message>
            <source>Search {path} for {pattern}</source>
            <translation>在 {path} 中搜索 {pattern}</translation>
        </message>
        <message>
            <source>Search {path} ({glob}) for {pattern}</source>
            <translation>在 {path}（{glob}）中搜索 {pattern}</translation>
        </message>
        <message>
            <source>Search the web for {query}</source>
            <translation>在网上搜索 {query}</translation>
        </message>
        <message>
            <source>Waiting for your answer</source>
            <translation>等待你的回答</translation>
        </message>
        <message>
            <source>Answered</source>
            <translation>已回答</translation>
        </message>
        <message>
            <source>Dismissed</source>
            <translation>已忽略</translation>
        </message>
        <message>
            <source>The agent's questions</source>
            <translation>智能体的问题</translation>
        </message>
        <message>
            <source>Sub-agent: {description}</source>
            <translation>子智能体：{description}</translation>
        </message>
        <message>
            <source>Search the knowledge base for {query}</source>
            <translation>在知识库中搜索 {query}</translation>
        </message>
        <message>
            <source>Show all {0} lines</source>
            <translation>显示全部 {0} 行</translation>
        </message>
        <message>
            <source>The change is longer than shown: {0} more lines were not kept, so not all of it can be seen before approving.</source>
            <translation>此更改比显示的更长：还有 {0} 行未保留，批准前无法看到全部内容。</translation>
        </message>
    </context>
    <context>
        <name>TreeActions</name>
        <message>
            <source>Custom guidance</source>
            <translation>自定义要求</translation>
        </message>
        <message>
            <source>How should the new answer differ?</source>
            <translation>新的回答应该有什么不同？</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>重新生成</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Last turn moved to the trash.</source>
            <translation>上一轮对话已移到回收站。</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Branch into a new chat</source>
            <translation>在新对话中分支</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>新对话</translation>
        </message>
        <message>
            <source>Branch · {0}</source>
            <translation>分支 · {0}</translation>
        </message>
        <message>
            <source>Branched into a new chat: {0}</source>
            <translation>已在新对话中分支：{0}</translation>
        </message>
        <message>
            <source>This chat is not saved yet.</source>
            <translation>此对话尚未保存。</translation>
        </message>
        <message>
            <source>This chat is in the trash: restore it first.</source>
            <translation>此对话在回收站中：请先恢复。</translation>
        </message>
        <message>
            <source>This chat is still answering: wait for it or stop it first.</source>
            <translation>此对话仍在回答中：请等待或先停止。</translation>
        </message>
    </context>
    <context>
        <name>UnsavedChanges</name>
        <message>
            <source>Unsaved changes</source>
            <translation>未保存的更改</translation>
        </message>
        <message>
            <source>Save changes to {what}?</source>
            <translation>保存对{what}的更改吗？</translation>
        </message>
    </context>
    <context>
        <name>UserEditWidget</name>
        <message>
            <source>Cancel</source>
            <translation>取消</translation>
        </message>
        <message>
            <source>Save &amp;&amp; send</source>
            <translation>保存并发送</translation>
        </message>
        <message>
            <source>Send this as a new version (Ctrl+Enter)</source>
            <translation>作为新版本发送（Ctrl+Enter）</translation>
        </message>
    </context>
    <context>
        <name>UserMessageWidget</name>
        <message>
            <source>Edit (the answer is kept as a version)</source>
            <translation>编辑（原回答会作为一个版本保留）</translation>
        </message>
        <message>
            <source>{0}, as written down:</source>
            <translation>{0}（转写的文字）：</translation>
        </message>
        <message>
            <source>Copy message</source>
            <translation>复制消息</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>你的消息</translation>
        </message>
    </context>
    <context>
        <name>VersionSwitcher</name>
        <message>
            <source>Previous version</source>
            <translation>上一个版本</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>下一个版本</translation>
        </message>
        <message>
            <source>Version {0} of {1}</source>
            <translation>第 {0} 个版本，共 {1} 个</translation>
        </message>
    </context>
    <context>
        <name>ViewBar</name>
        <message>
            <source>{n} selected</source>
            <translation>已选 {n} 个</translation>
        </message>
        <message>
            <source>Chats</source>
            <translation>对话</translation>
        </message>
        <message>
            <source>Archived</source>
            <translation>已归档</translation>
        </message>
        <message>
            <source>Trash</source>
            <translation>回收站</translation>
        </message>
        <message>
            <source>Deleted conversations, restorable until the automatic purge</source>
            <translation>已删除的对话，自动清除之前都可以恢复</translation>
        </message>
        <message>
            <source>Select</source>
            <translation>多选</translation>
        </message>
        <message>
            <source>Select several conversations</source>
            <translation>选择多个对话</translation>
        </message>
        <message>
            <source>All</source>
            <translation>全选</translation>
        </message>
        <message>
            <source>Move to</source>
            <translation>移动到</translation>
        </message>
        <message>
            <source>Archive</source>
            <translation>归档</translation>
        </message>
        <message>
            <source>Unarchive</source>
            <translation>取消归档</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>删除</translation>
        </message>
        <message>
            <source>Restore</source>
            <translation>恢复</translation>
        </message>
        <message>
            <source>Delete forever</source>
            <translation>永久删除</translation>
        </message>
        <message>
            <source>Empty trash…</source>
            <translation>清空回收站…</translation>
        </message>
        <message>
            <source>Export…</source>
            <translation>导出…</translation>
        </message>
    </context>
    <context>
        <name>VoiceRecorder</name>
        <message>
            <source>Voice input needs Qt Multimedia, which did not load ({0}).</source>
            <translation>语音输入需要 Qt Multimedia，但它未能加载（{0}）。</translation>
        </message>
        <message>
            <source>No microphone was found. Connect one, or choose an input device in your system's sound settings.</source>
            <translation>未找到麦克风。请连接一个，或在系统的声音设置中选择输入设备。</translation>
        </message>
        <message>
            <source>The microphone “{0}” could not be opened. Another program may be using it, or Mira may not be allowed to.</source>
            <translation>无法打开麦克风“{0}”。可能有其他程序正在使用它，或 Mira 没有权限。</translation>
        </message>
        <message>
            <source>The microphone “{0}” stopped recording (was it unplugged?).</source>
            <translation>麦克风“{0}”停止了录音（是否被拔出？）。</translation>
        </message>
        <message>
            <source>The microphone records in a format Mira cannot read.</source>
            <translation>麦克风的录音格式 Mira 无法读取。</translation>
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
    <context>
        <name>WorkspaceActions</name>
        <message>
            <source>Delete the workspace "{name}"? Its {n} conversation(s) will move to the trash, restorable into Mira BASE.</source>
            <translation>删除工作区“{name}”？其中的 {n} 个对话将移到回收站，可恢复到 Mira BASE。</translation>
        </message>
        <message>
            <source>Delete workspace</source>
            <translation>删除工作区</translation>
        </message>
        <message>
            <source>Workspace deleted; {n} conversation(s) moved to the trash.</source>
            <translation>工作区已删除；{n} 个对话已移到回收站。</translation>
        </message>
    </context>
    <context>
        <name>WorkspaceDialog</name>
        <message>
            <source>Choose the root folder</source>
            <translation>选择根文件夹</translation>
        </message>
        <message>
            <source>New workspace</source>
            <translation>新建工作区</translation>
        </message>
        <message>
            <source>Edit workspace</source>
            <translation>编辑工作区</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>名称</translation>
        </message>
        <message>
            <source>Colour</source>
            <translation>颜色</translation>
        </message>
        <message>
            <source>Root folder</source>
            <translation>根文件夹</translation>
        </message>
        <message>
            <source>e.g. Research</source>
            <translation>例如：研究</translation>
        </message>
        <message>
            <source>The default workspace keeps its name.</source>
            <translation>默认工作区保留它的名称。</translation>
        </message>
        <message>
            <source>Optional: files the agent may read</source>
            <translation>可选：智能体可以读取的文件</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>选择…</translation>
        </message>
        <message>
            <source>Create</source>
            <translation>创建</translation>
        </message>
        <message>
            <source>Save</source>
            <translation>保存</translation>
        </message>
        <message>
            <source>Custom colour {color}</source>
            <translation>自定义颜色 {color}</translation>
        </message>
    </context>
    <context>
        <name>WorkspaceListWidget</name>
        <message>
            <source>All chats</source>
            <translation>全部对话</translation>
        </message>
        <message>
            <source>Edit workspace…</source>
            <translation>编辑工作区…</translation>
        </message>
        <message>
            <source>Delete workspace…</source>
            <translation>删除工作区…</translation>
        </message>
        <message>
            <source>Mira BASE is the default workspace; it cannot be deleted.</source>
            <translation>Mira BASE 是默认工作区，不能删除。</translation>
        </message>
    </context>
</TS>
