-- spend_explain: every finding of the selected runs with its one-line explanation, in words
--   a user acts on (numbers checkable by hand).
-- Grain: one row per finding of spend_found, ordered by run_id, idx, kind, detail.
-- Needs: temp tables spend_found, spend_runs; parameters $ttl_s, $long_context,
--   $subagent_share (the options the findings were made with, quoted in the text).
WITH found AS (
    SELECT
        *,
        CASE WHEN tokens IS NULL THEN 'unknown tokens' ELSE format('{:,} tokens', tokens) END
        || ', '
        || CASE WHEN cost IS NULL THEN 'unknown cost' ELSE format('${:.4f}', cost) END AS spent,
        coalesce(CAST(idx AS VARCHAR), '?') AS at_step,
        coalesce(CAST(ref_idx AS VARCHAR), '?') AS ref_step
    FROM spend_found
    WHERE run_id IN (SELECT run_id FROM spend_runs WHERE selected)
)

SELECT
    run_id, kind, idx, ref_idx, tokens, cost, detail, amount,
    CASE kind
        WHEN 'identical_call' THEN format(
            'step {} repeats the {} call of step {} with the same input and output: {}, its '
            || 'share of the model call that made it', at_step, detail, ref_step, spent)
        WHEN 'reread' THEN format(
            'step {} reads {} again, unchanged since step {} read it (no write to it in '
            || 'between): {}', at_step, detail, ref_step, spent)
        WHEN 'failed_retry' THEN format(
            'step {} retries {} with the input that failed at step {}: {}',
            at_step, detail, ref_step, spent)
        WHEN 'cache_rebuild' THEN format(
            'step {} rewrote the prompt cache after a {:.0f} s pause (cache TTL {:g} s): {} '
            || 'over reading a warm cache', at_step, amount, CAST($ttl_s AS DOUBLE), spent)
        WHEN 'long_context' THEN format(
            'step {} sent a {:,}-token prompt, above {:,}: {} for the part above the threshold',
            at_step, CAST(amount AS BIGINT), CAST($long_context AS BIGINT), spent)
        ELSE format(
            'step {} started sub-agent run {}, costing {} of this run''s own cost (above '
            || '{:.0f}%): {}', at_step, detail,
            CASE WHEN amount IS NULL THEN 'unknown' ELSE format('{:.0f}%', 100 * amount) END,
            100 * CAST($subagent_share AS DOUBLE), spent)
    END AS explanation
FROM found
ORDER BY run_id, idx, kind, detail
