"""Evaluation: episode verdicts and metrics, the model judge for real-device runs, and rescoring of judge files."""

from mobile_r1.eval.metrics import EpisodeVerdict, MetricsReport, MetricSummary, Mean, Rate, summarize

__all__ = ["EpisodeVerdict", "MetricsReport", "MetricSummary", "Mean", "Rate", "summarize"]
