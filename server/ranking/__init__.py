"""The one ranker: the candidates' named features (features), the ranker that scores them
(ranker) with a learned ranking's trees (trees, rankings/LANG.json) or the linear scorer's
weights (linear_weights)."""
