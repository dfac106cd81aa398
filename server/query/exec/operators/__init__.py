"""Physical operators (pull-based, Python generators): ``base`` (the Operator protocol, scans, filters,
projection), ``rows`` (sort, aggregate, distinct, limits), ``paths`` (expand, var-length, shortest),
``subplans`` (apply, CALL, UNION, procedures), ``write`` (CREATE, MERGE, SET, DELETE), ``search`` (SEARCH)."""
