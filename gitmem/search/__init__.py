"""Reading the index: hybrid ranking, views as of a revision, history, the timeline and log --grep."""
