"""Export, print and import in the window (PRODUCT.md §9)."""
