"""Graph passes run by NnapiBackend.preprocess before the builders emit operations.

Each pass reads the partition's FX graph and records its decisions in the
LoweringContext; none of them rewrites the graph, so the node names the
partitioner reported stay valid for the numerics debugger.
"""

from .activation_fusion import fuse_activations
from .batch_norm_folding import fold_batch_norms
from .channel_shuffle import record_channel_shuffles
from .high_rank_views import record_view_regions
from .safe_softmax import record_safe_softmaxes

__all__ = ["fold_batch_norms", "fuse_activations", "record_channel_shuffles", "record_safe_softmaxes",
           "record_view_regions"]
