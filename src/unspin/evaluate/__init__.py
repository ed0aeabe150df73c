"""Evaluation: standard metrics (``metrics``) and loaders for public benchmarks (``loaders``)."""
