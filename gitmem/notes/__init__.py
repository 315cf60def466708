"""The verbs that write the notebook (remember, daily, write, forget, init) and the guard every write passes."""
