"""How the interface words Mira's errors: the error's message, then what to do
next, in the interface's language where the catalogue knows them.

The Qt-free layers write English. Their messages reach people in three ways,
all translated here: a message written from a template (``core.errors.worded``:
the template and its fields travel with the error, also when it is stored with
a failed answer) is translated as a template and filled in; any other message
or a specific hint is looked up as a whole (the constants of
:func:`known_texts`); the standard hint of an error class is translated by its
code (:func:`translated_hint`). A hint that sends people to a command of the
command line has a window's own wording instead (:func:`window_hints`). Text
from elsewhere — a server's own error message, a file name — stays as it is."""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication

from mira_desktop.core.errors import MiraError, RateLimitError
from mira_desktop.ui.provider_error_texts import provider_texts

log = logging.getLogger(__name__)

TR_CONTEXT = "ErrorTexts"  # the messages and hints of the Qt-free layers
HINT_CONTEXT = "StatusLabel"  # the standard hints (their catalogue context since issue 3)


def _tr(text: str) -> str:
    return QCoreApplication.translate("ErrorTexts", text)


def known_texts() -> tuple[str, ...]:
    """The messages, templates and hints of the Qt-free layers this catalogue
    translates, in the interface's language (literals, for
    ``packaging/extract_strings.py``; a test checks each is still written by
    the code it translates)."""
    return (
        *provider_texts(),
        # storage/database.py
        _tr("The disk is full; nothing was lost, but this change was not saved ({detail})."),
        _tr("The database is busy in another Mira window or command ({detail})."),
        _tr("Database error: {detail}"),
        _tr('The database "{path}" is damaged ({detail}).'),
        _tr(
            "Run `mira-desktop doctor --fix`, or open Mira and choose Recover: the damaged file "
            "is moved to the backups folder and what can still be read is saved into a new "
            "database."
        ),
        _tr("Try again in a moment."),
        # services/agent/, core/agent.py
        _tr("The agent works in a project folder, and this workspace has none."),
        _tr(
            "Choose a folder for the workspace, bind a knowledge base to the chat,"
            " or turn the agent off for this chat."
        ),
        _tr("The workspace's folder {root} is not there any more."),
        _tr("There is nothing to roll back here."),
        _tr("The agent is not available here."),
        _tr("The agent stopped after {rounds} rounds of tool calls."),
        _tr("Send “continue” to let it go on, or say what to do differently."),
        _tr("Not rolled back: {files} changed since the agent wrote them."),
        _tr("There is no skill named {name} in .agent/skills/."),
        _tr("The skill {name} has no SKILL.md file."),
        _tr("Each skill is a folder there with a SKILL.md file."),
        _tr("The skill {name} links outside the workspace folder, so it was not read."),
        _tr("Skills are read only from inside the workspace folder."),
        _tr("A search address starts with http:// or https:// and has {query} where the words go."),
        _tr("For example http://localhost:8888/search?q={query}&format=json (SearXNG)."),
        _tr("Nothing was written. Undo those edits first, or leave the change as it is."),
        # services/speech_engine.py, services/speech.py
        _tr("There is no speech engine on this computer."),
        _tr(
            "Install a speech engine: eSpeak NG on Linux (sudo apt install libespeak-ng1),"
            " then restart Mira."
        ),
        _tr("The system voice failed: {cause}"),
        _tr("The system voice did not finish in time."),
        _tr("Try again; a very long answer may take a while."),
        _tr("The system voice produced no sound."),
        _tr("Try again; if it keeps failing, check the speech engine's voices."),
        _tr("This answer has nothing to read aloud."),
        _tr("Only its text is read; code, links and tables' rules are left out."),
        _tr("Only an answer that has ended can be read aloud."),
        _tr("Wait for the answer to finish, then try again."),
        _tr("The audio of this answer is gone from the data folder."),
        _tr("Read the answer aloud again."),
        _tr("Could not write {name}: {reason}"),
        # services/illustration.py, providers/images.py
        _tr("Only an answer that has ended can be illustrated."),
        _tr("The image of this answer is gone from the data folder."),
        _tr("Make the image again."),
        _tr("No image model is chosen."),
        _tr("Choose an image model in Settings → Chat & data (an OpenAI-compatible provider)."),
        _tr('The image model\'s provider "{provider}" is gone.'),
        _tr('"{provider}" cannot make images.'),
        _tr("The server's image cannot be read"),
        _tr("The server sent an image in a format Mira does not keep ({format})"),
        _tr("The server sent no image"),
        _tr("The server sent an image that is not valid base64"),
        # services/transcription.py, providers/transcription.py
        _tr("The server sent no transcript"),
        _tr('"{provider}" cannot transcribe speech.'),
        _tr("Choose an OpenAI-compatible provider."),
        _tr("No speech-to-text model is chosen."),
        _tr(
            "Choose a speech-to-text model in Settings → Chat & data (an OpenAI-compatible "
            "provider), or with `mira-desktop provider transcription-model PROVIDER MODEL`."
        ),
        _tr('The speech-to-text model\'s provider "{provider}" is gone.'),
        _tr("Name both the provider and the speech-to-text model, or neither."),
        _tr("Without them the model chosen in Settings is used."),
        _tr(
            'The server of "{provider}" has no speech-to-text endpoint, or does not know the '
            'model "{model}".'
        ),
        _tr("Check the model's name, or choose a server that transcribes speech."),
        _tr("Nothing was heard in the recording."),
        _tr("Check the microphone and speak again, or choose another file."),
        _tr("The recording is empty."),
        _tr("Record again, or choose another file."),
        _tr("The recording is {size}; speech-to-text takes at most {limit}."),
        _tr("Record a shorter clip, or split the file into smaller parts."),
        _tr('"{name}" is not an audio file that speech-to-text takes.'),
        _tr("Use one of these formats: {formats}."),
        _tr('Cannot read "{path}": {detail}.'),
        _tr("Check that the file exists and can be read."),
        # services/run_support.py
        _tr(
            "This answer could not be saved: the disk is full. Free some space and open "
            "this chat again to save it; closing Mira before that loses it."
        ),
        _tr(
            "This answer could not be saved ({cause}). Open this chat again to save it; "
            "closing Mira before that loses it."
        ),
        _tr("Could not save the answer: {detail}"),
        _tr("The model returned an empty answer."),
        _tr("Retry, or try another model."),
        _tr(
            "The model only reasoned and gave no answer (it may have run out of tokens while "
            "thinking)."
        ),
        _tr("Retry, allow longer answers (the role's max tokens), or try another model."),
        # services/chat.py, chat_plan.py, conversation.py
        _tr("This thread is still answering."),
        _tr("Stop it first, then retry."),
        _tr("Stop it first, then send."),
        _tr("Type a message first."),
        # storage/tree_repo.py
        _tr("There is nothing to undo in this thread."),
        _tr("There is no undone turn to restore in this thread."),
        # services/summariser.py, compaction.py
        _tr("The model returned an empty summary."),
        _tr("The conversation changed while it was being compressed; nothing was saved."),
        _tr("Run /compact again."),
        _tr("The summary was cut off at the model's answer length limit; nothing was changed."),
        _tr("Try again with shorter instructions, or use a model that writes longer answers."),
        # storage/database.py
        _tr("Cannot use the data folder {folder}: {reason}"),
        _tr("Check that the folder can be written, or start with --data-dir to use another one."),
        # services/kb/rag.py
        _tr("The knowledge base chosen for this chat no longer exists."),
        _tr("Pick another one, or none, above the conversation."),
        # services/workspaces.py, storage/workspaces_repo.py
        _tr("The folder {folder} does not exist."),
        _tr("Choose an existing folder."),
        _tr('A workspace named "{name}" already exists.'),
        _tr("Choose another name."),
        _tr("A workspace needs a name."),
        # services/threads.py, history.py, kb/manager.py
        _tr("A title cannot be empty."),
        _tr("A title holds at most {limit} characters; this one has {count}."),
        _tr("Shorten it."),
        _tr("A knowledge base needs a name."),
        # services/data_folder.py
        _tr("Mira already uses this folder."),
        _tr('"{folder}" is not empty and holds no Mira data.'),
        _tr("Choose an empty folder, or a folder Mira used before."),
        _tr('Could not copy the data to "{folder}": {detail}'),
        _tr('"{folder}" is inside the current data folder "{current}".'),
        _tr('"{folder}" holds the current data folder "{current}".'),
        _tr("Choose a folder outside the current data folder, and not one that holds it."),
        _tr('Cannot write to "{folder}": {detail}'),
        _tr('"{folder}" no longer holds Mira data.'),
        _tr('There is no database at "{path}".'),
        _tr('Could not copy the database "{path}": {detail}'),
        # services/export/service.py
        _tr("There is nothing to export."),
        _tr("Select at least one thread."),
        # services/importers/chatgpt.py, storage/import_repo.py: why a thread was skipped
        _tr("already imported, nothing new"),
        _tr("no messages to import"),
        _tr("its messages' parents form a loop"),
        # services/importers/reading.py
        _tr("{name} is {size}; an import file can be at most {limit}."),
        _tr("The files to import in {name} come to {size} unpacked; at most {limit} can be read."),
        _tr("Nothing was imported. Export fewer conversations into each file."),
        _tr("{name} is nested too deeply (more than {limit} levels of objects and lists)."),
        _tr("{name} is encrypted; unzip it first."),
        _tr("{name} is packed in a way Mira cannot unpack ({detail}); unzip it first."),
        # services/readers: files that cannot be attached or indexed
        _tr('"{name}" is a folder, not a file.'),
        _tr("Choose a file inside it instead."),
        _tr('"{name}" no longer exists.'),
        _tr("It may have been moved or deleted; choose it again."),
        _tr('"{name}" cannot be opened: {detail}.'),
        _tr("Check that you are allowed to read it."),
        _tr('"{name}" is {size}; the limit is {limit}.'),
        _tr("Attach a smaller file, or raise the limit in Settings → Chat & data."),
        _tr("Save it as .{new} and attach that copy."),
        _tr("Supported: {supported}."),
        _tr(
            "images (PNG, JPG, WebP, GIF), text, Markdown, CSV, JSON, YAML, code, config, "
            "logs, PDF, DOCX, PPTX and XLSX"
        ),
        _tr('"{name}" is empty (0 bytes).'),
        _tr("Check that you chose the right file."),
        _tr('"{name}" is in the old .{ext} format, which Mira cannot read.'),
        _tr('Mira cannot read "{name}": .{ext} files are not supported.'),
        _tr('Mira cannot read "{name}": this kind of file is not supported.'),
        _tr('"{name}" cannot be read: it is damaged or not really {what} ({detail}).'),
        _tr('"{name}" cannot be read: it is damaged or not really {what}.'),
        _tr("Open it in the program that made it, save a fresh copy, and attach that."),
        _tr('"{name}" cannot be used: {detail}.'),
        _tr("Check that you chose the right file, or paste the text you want instead."),
        _tr('"{name}" looks like a binary file, not text, so it cannot be read.'),
        _tr("Attach text, code or a document in a supported format (PDF, DOCX, PPTX, XLSX)."),
        _tr('"{name}" is password-protected (or saved in the old Office format).'),
        _tr("Open it, remove the password, save it as .{kind}, and attach that copy."),
        _tr('This PDF is password-protected: "{name}".'),
        _tr("Open it, remove the password (or print it to a new PDF), and attach that copy."),
        _tr('"{name}" is a {format} image; Mira accepts PNG, JPG, WebP and GIF.'),
        _tr("Convert it to PNG or JPG and attach it again."),
        _tr('"{name}" has {dimensions} pixels, too many to open safely.'),
        _tr("Resize it below {megapixels} megapixels and attach it again."),
        _tr("Attach a version with selectable text (run text recognition / OCR on it first)."),
        _tr('"{name}" unpacks to {size}; at most {limit} can be read.'),
        _tr("Split it into smaller files, or save a copy without large embedded media."),
        _tr('"{name}" takes too long to read: nothing usable came out of it in {seconds} seconds.'),
        _tr("Try a smaller or simpler copy of it (a PDF can be printed to a new PDF)."),
        _tr(
            '"{name}" cannot be read: its pages are too complex (the content of a page'
            " unpacks to more than {limit})."
        ),
        _tr("Print it to a new PDF (or save its text) and attach that."),
        _tr(
            '"{name}" holds a part that unpacks from {packed} to {size}, far more than'
            " documents do; it is refused as a possible decompression bomb."
        ),
        # … and the phrases filled into them (translated as fields)
        _tr("a PDF"),
        _tr("an image"),
        _tr("a Word document"),
        _tr("a PowerPoint file"),
        _tr("an Excel workbook"),
        _tr("a text file"),
        _tr("it contains no text"),
        _tr("it contains only blank space"),
        _tr("every sheet is empty"),
        _tr("the PDF has no pages"),
        _tr("no PDF header"),
        _tr("no page could be read"),
        _tr("it is not an Office file inside"),
        _tr("its content is not a known image format"),
        _tr("it has no text layer; it looks scanned, and Mira does not read text in images"),
        _tr("its ZIP directory is damaged"),
        _tr("it holds far too many parts"),
        _tr("a table is wider than Word allows"),
    )


def window_hints() -> dict[str, str]:
    """Hints of the Qt-free layers that name a command of the command line
    (English, as written there; a test checks each is still written), and what
    the window says instead, in the interface's language."""
    return {
        "List them with `mira-desktop provider list`.": _tr(
            "Choose another model above the conversation, or check the providers in"
            " Settings → Providers."
        ),
        "Add one with `mira-desktop provider add`, or in Settings → Providers.": _tr(
            "Add one in Settings → Providers."
        ),
        "Run `mira-desktop doctor` to check the data folder.": _tr(
            "Check the data folder with Help → Check data…"
        ),
        (
            "Choose a speech-to-text model in Settings → Chat & data (an OpenAI-compatible "
            "provider), or with `mira-desktop provider transcription-model PROVIDER MODEL`."
        ): _tr(
            "Choose a speech-to-text model in Settings → Chat & data (an OpenAI-compatible"
            " provider)."
        ),
    }


def _translated(text: str) -> str:
    """``text`` in the interface's language when the catalogue has it, else as is."""
    return QCoreApplication.translate(TR_CONTEXT, text) if text else text


def _filled(template: str, error: MiraError, fallback: str) -> str:
    """``template`` translated and filled with the error's fields; a field that
    is itself a known phrase ("a PDF") is translated too — names, addresses and
    a server's words match nothing and stay. ``fallback`` when they do not fit."""
    fields = {name: _translated(value) for name, value in error.params.items()}
    try:
        return _translated(template).format(**fields)
    except (KeyError, IndexError, ValueError):  # a translation with other fields
        log.warning("cannot fill the translation of %r", template)
        return fallback


def known_text(text: str) -> str:
    """A fixed phrase of the Qt-free layers (one of :func:`known_texts`, such
    as why an import skipped a thread) in the interface's language."""
    return _translated(text)


def message_text(error: MiraError) -> str:
    """The error's message in the interface's language where it can be."""
    if error.template is not None:
        return _filled(error.template, error, error.message)
    return _translated(error.message)


def hint_text(error: MiraError) -> str:
    """What to do next, in the interface's language where it can be (the
    window's own wording for a hint that names a command-line command)."""
    instead = window_hints().get(error.hint)
    if instead is not None:
        return instead
    if error.hint_template is not None:
        return _filled(error.hint_template, error, error.hint)
    hint = translated_hint(error)
    return _translated(hint) if hint == error.hint else hint


def error_line(error: BaseException, separator: str = " ") -> str:
    """The message and the hint, joined (one line by default)."""
    if not isinstance(error, MiraError):
        return str(error) or type(error).__name__
    return separator.join(part for part in (message_text(error), hint_text(error)) if part)


def describe_error(error: BaseException) -> str:
    """One or two lines for people: the message, then what to do next."""
    if isinstance(error, MiraError):
        return error_line(error, "\n")
    log.error("unexpected error shown to the user", exc_info=error)
    return QCoreApplication.translate(HINT_CONTEXT, "Something went wrong: {error}").format(
        error=error or type(error).__name__
    )


def translated_hint(error: MiraError) -> str:
    """The error's hint, translated when it is the standard hint of its class."""
    if isinstance(error, RateLimitError) and error.hint == error.standard_hint(error.retry_after):
        template, fields = error.wait_words(error.retry_after)
        waits = {
            "Wait a moment and retry.": QCoreApplication.translate(
                HINT_CONTEXT, "Wait a moment and retry."
            ),
            "Wait {seconds} s and retry.": QCoreApplication.translate(
                HINT_CONTEXT, "Wait {seconds} s and retry."
            ),
            "Wait {minutes} min and retry.": QCoreApplication.translate(
                HINT_CONTEXT, "Wait {minutes} min and retry."
            ),
            "Wait {hours} h and retry.": QCoreApplication.translate(
                HINT_CONTEXT, "Wait {hours} h and retry."
            ),
            "Wait {days} days and retry.": QCoreApplication.translate(
                HINT_CONTEXT, "Wait {days} days and retry."
            ),
        }
        return waits[template].format(**fields)
    if error.hint != type(error).default_hint:
        return error.hint
    hints = {
        "authentication": QCoreApplication.translate(
            HINT_CONTEXT, "Check the provider's API key in Settings → Providers."
        ),
        "model_not_found": QCoreApplication.translate(
            HINT_CONTEXT, "Pick another model, or pull it on the server (e.g. `ollama pull NAME`)."
        ),
        "context_overflow": QCoreApplication.translate(
            HINT_CONTEXT, "Compact the conversation (/compact) or start a new thread."
        ),
        "server": QCoreApplication.translate(
            HINT_CONTEXT, "The model server had a problem; retry, or check its logs."
        ),
        "bad_request": QCoreApplication.translate(
            HINT_CONTEXT, "The server refused the request; check the model and settings."
        ),
        "network": QCoreApplication.translate(
            HINT_CONTEXT,
            "Check that the server is running and the base URL is right (e.g. start Ollama).",
        ),
        "malformed_stream": QCoreApplication.translate(
            HINT_CONTEXT, "The server sent an invalid or incomplete answer; retry."
        ),
        "storage": QCoreApplication.translate(
            HINT_CONTEXT, "Check that the data folder is writable and the disk is not full."
        ),
    }
    return hints.get(error.code, error.hint)
