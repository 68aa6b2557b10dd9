"""The user-facing tools of the NNAPI delegate, above the partitioner and the quantizer:
the ``executorch-nnapi`` command line (``cli``), the delegation report (``report``) and the
export helpers (``export``). Nothing below this package imports it."""
