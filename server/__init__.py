"""treecomplete: structure-aware code completion over the Language Server Protocol."""

import os
import warnings

# oneDNN, which runs torch's LSTM on a CPU, keeps every primitive it builds, up to 1,024: one per
# read length and dtype, ~200 KB each, never freed (+31 MB after reads of 150 lengths). Building
# one costs less than the read it serves, so a few are kept (a user's own setting stays).
os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "32")

# torch warns at import when NumPy is absent; treecomplete never hands it NumPy arrays.
warnings.filterwarnings("ignore", message="Failed to initialize NumPy")

__version__ = "0.1.0"
