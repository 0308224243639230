-- reprice_keys: the distinct prices the recomputed costs need: each (totals, action, model, day)
-- Grain: one row per key_no of rg_reprice_calls.
-- Needs: temp table rg_reprice_calls (reprice_calls.sql). Read by reportgen.ingest.reprice,
--   which resolves each key's price once (reportgen.formats.pricing.PriceTable.day_price).
SELECT DISTINCT key_no, totals, action, model, day_us
FROM rg_reprice_calls
ORDER BY key_no
