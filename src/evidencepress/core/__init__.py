"""The bottom of the package: frozen model types, diagnostics, authored JSON numbers, site paths,
build options and the worker-process rules. Imports nothing else of evidencepress.
"""
