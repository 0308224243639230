-- site_newest_nights: the $keep newest batches (nights) of the archive, newest first.
-- Grain: one row per batch.
-- Needs: archive table runs; parameter $keep (passed by reportgen.site.retention.newest_nights).
SELECT DISTINCT batch FROM runs ORDER BY batch DESC LIMIT $keep
