-- reprice_usages: the calls whose price is no linear rates (it changes within the day), each
--   distinct usage once, for reportgen.ingest.reprice to price one by one (PriceTable.cost).
-- Grain: one row per distinct (key_no, prompt, output, cache_read, cache_write, at_us) of the
--   rows of a by_call key; at_us the call's time for an hourly price, else its day's start.
-- Needs: temp table rg_reprice_calls (reprice_calls.sql); registered Arrow table
--   rg_reprice_rates (reportgen.ingest.reprice).
SELECT DISTINCT c.key_no, c.prompt, c.output, c.cache_read, c.cache_write,
    CASE WHEN k.hourly THEN c.at_us ELSE c.day_us END AS at_us
FROM rg_reprice_calls AS c
JOIN rg_reprice_rates AS k ON k.key_no = c.key_no AND k.by_call
ORDER BY ALL
