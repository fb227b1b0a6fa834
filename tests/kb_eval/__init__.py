"""The knowledge-base evaluation set: generated English and Chinese documents
(Markdown, PDF, DOCX, PPTX, XLSX, TXT) and questions with their known source
passage, plus recall@k (``corpus.py``); ``test_recall.py`` holds the gate."""
