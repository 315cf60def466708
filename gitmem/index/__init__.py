"""The derived SQLite index: chunking blobs, embeddings, provenance, the forgotten record, catch-up and rebuild."""
