-- reprice_keys: the distinct prices the recomputed costs need: each (totals, action, model, day)
-- Grain: one row per distinct (totals, action, model, day_us) of rg_reprice_calls.
-- Needs: temp view rg_reprice_calls (reprice_calls.sql). Read by reportgen.ingest.reprice,
--   which resolves each key's price once (reportgen.formats.pricing.PriceTable.day_price).
SELECT totals, action, model, day_us
FROM rg_reprice_calls
GROUP BY ALL
ORDER BY ALL
