-- adapter_runs: move the runs an adapter collected (Arrow view rg_adapter_runs, see
-- reportgen/formats/adapters/rows.py) into stage_runs; timestamps and meta typed, batch defaulted to the
-- UTC date of started_at, else "undated".
INSERT INTO stage_runs BY NAME
SELECT * EXCLUDE (started_at, meta, batch),
       TRY_CAST(started_at AS TIMESTAMPTZ) AS started_at,
       CAST(meta AS JSON) AS meta,
       coalesce(batch, strftime(TRY_CAST(started_at AS TIMESTAMPTZ), '%Y-%m-%d'), 'undated')
           AS batch
FROM rg_adapter_runs
