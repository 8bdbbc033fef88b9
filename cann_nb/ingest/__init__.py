"""Importers of profiles recorded elsewhere (Kineto/Chrome traces, Ascend folders) and exporters."""
