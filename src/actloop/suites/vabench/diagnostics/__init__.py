"""vabench's trajectory diagnostics (the seed's section 4 and appendix C.9): the nine-criterion rubric that
annotators and judges share."""
