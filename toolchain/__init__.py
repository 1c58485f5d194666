"""gramwright: make language-model output parseable by construction.

Data flow (one way through): schema → lint / compile → Grammar IR → GBNF text and recognizer →
token engine → decode → pipeline. Masks guarantee *form*; they never guarantee *content*.
"""

__version__ = "0.1.0"
