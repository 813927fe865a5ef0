"""The hostile-input corpus: files/ (scenario files with their expected error in a header),
api_cases.py (calls of the Python API) and run_corpus.py (runs all of it in one process)."""
