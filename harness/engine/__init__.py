"""The lab engine: manifests, steps, check and action kinds, progress, the dev check."""
