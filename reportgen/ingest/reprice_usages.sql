-- reprice_usages: the calls whose price is no linear rates, each distinct usage once, for
--   reportgen.ingest.reprice to price one by one (PriceTable.cost).
-- Grain: one row per distinct key (totals, action, model, day_us), prompt, output, cache_read,
--   cache_write and at of the rows of a by_call key; at: the call's time for an hourly price
--   (one that changes within the day), else its day's start (the price is the day's).
-- Needs: temp view rg_reprice_calls (reprice_calls.sql); registered Arrow table
--   rg_reprice_rates (reportgen.ingest.reprice).
SELECT c.totals, c.action, c.model, c.day_us, c.prompt, c.output, c.cache_read, c.cache_write,
    CASE WHEN k.hourly THEN c.at_us ELSE c.day_us END AS at_us
FROM rg_reprice_calls AS c
JOIN rg_reprice_rates AS k
    ON k.by_call AND k.totals = c.totals AND k.action IS NOT DISTINCT FROM c.action
    AND k.model IS NOT DISTINCT FROM c.model AND k.day_us = c.day_us
GROUP BY ALL
ORDER BY ALL
