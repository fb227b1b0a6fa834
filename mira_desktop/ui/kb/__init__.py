"""Knowledge bases in the window (PRODUCT.md §3 path 2): the manager dialog,
the header's knowledge-base picker, the Sources list under an answer and its
clickable citations, and ``KbActions``, which wires them to the services."""
