-- Read every value of one table (hashing each whole row), so that DuckDB checks the checksum
-- of every block: a damaged archive fails here, at open, with one clear error.
SELECT bit_xor(hash(t)) FROM query_table($name) AS t
