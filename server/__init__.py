"""treecomplete: structure-aware code completion over the Language Server Protocol."""

import warnings

# torch warns at import when NumPy is absent; treecomplete never hands it NumPy arrays.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

__version__ = "0.1.0"
