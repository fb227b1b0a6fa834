"""The bar above the conversation (title, model picker, menu)."""

from mira_desktop.ui.header.header_widget import HeaderWidget, ModelPickerWidget

__all__ = ["HeaderWidget", "ModelPickerWidget"]
