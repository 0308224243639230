-- verify_table: read every value of one table (hashing each whole row), so that DuckDB checks
-- the checksum of every block: a damaged archive fails here, at open, with one clear error.
-- Grain: one row (the XOR of the row hashes, unused).
-- Needs: parameter $name, an archive table (reportgen.archive.connection.verify_blocks).
SELECT bit_xor(hash(t)) FROM query_table($name) AS t
