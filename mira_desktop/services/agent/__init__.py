"""The agent's tools (PRODUCT.md §11), free of Qt: the workspace scope every
path goes through, the file and search tools, bash, the check that tells a
read-only shell command from one that may change files, and rollback of the
changes the agent made."""
