-- convergence_groups: convergence of each group's outputs, for every group at once: the
-- numbers that reportgen.convergence.score_runs (= agent-convergence-scorer 0.3.0) gives.
-- Grain: one row per group = (suite, label, task_id, batch) with at least 2 non-NULL outputs,
--   ordered by suite, label, task_id, batch.
-- Needs: archive table outputs; nothing else (plain SQL: no macro, UDF or parameter). Run by
--   reportgen.convergence.archive.group_convergence_sql; the tests check that it agrees with
--   the vectorised group_convergence.
-- Runs are ordered by trial, then run_id (then output, to break exact ties); run 0 is the first.
--
-- Exactness, so the floats equal Python's bit for bit:
-- * Tokens are Python's str.lower().split(). DuckDB's lower() agrees with CPython on every
--   single code point except U+0130 (replaced first) and the context-dependent final sigma.
--   Outputs that are plain (single spaces between words, no other whitespace, no U+0130 or
--   U+03A3) just go through lower() and a split on ' '. The others take a slower path: a split
--   on exactly the code points where str.isspace() is true, and per-character lowering of Σ.
-- * avg_overlap sums the pair Jaccards left to right in (i, j) order, as builtin sum() does.
-- * round(x, 3) is Python's: half-to-even on the exact binary value of x, decided in HUGEINT
--   arithmetic on x * 2^64 (exact for x >= 2^-12; smaller values round to 0 anyway).
-- * The two character classes (cased, case-ignorable) are CPython 3.11's (Unicode 14.0);
--   tests/convergence/test_archive_sql.py rebuilds them from the running Python and compares.
-- Method: Jaccard counts come from one bitmask of runs per (group, token) (groups of up to 62
-- runs; larger groups join token sets pairwise); the shared prefix of a group is the one of
-- its lexicographically smallest and largest token strings.
WITH grp AS (
    SELECT suite, label, task_id, batch, count(*) AS n, row_number() OVER () AS gid
    FROM outputs
    WHERE output IS NOT NULL
    GROUP BY suite, label, task_id, batch
    HAVING count(*) >= 2
),
ordered AS (
    SELECT g.gid, g.n, o.output,
           CAST(row_number() OVER (PARTITION BY g.gid ORDER BY o.trial, o.run_id, o.output) - 1
                AS INTEGER) AS i,
           NOT regexp_matches(
               o.output,
               '[\t\n\x0B-\r\x1C-\x1F\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}Σİ]|  |^ | $'
           ) AS plain
    FROM outputs AS o
    JOIN grp AS g
      ON o.suite IS NOT DISTINCT FROM g.suite AND o.label IS NOT DISTINCT FROM g.label
     AND o.task_id IS NOT DISTINCT FROM g.task_id AND o.batch IS NOT DISTINCT FROM g.batch
    WHERE o.output IS NOT NULL
),
special AS (
    -- the slower path: c = cased, i = case-ignorable, o = other, per character
    SELECT gid, i, output, cs,
           array_to_string(list_transform(cs, lambda ch:
               CASE WHEN regexp_full_match(ch, '[\x{41}-\x{5A}\x{61}-\x{7A}\x{AA}\x{B5}\x{BA}\x{C0}-\x{D6}\x{D8}-\x{F6}\x{F8}-\x{1BA}\x{1BC}-\x{1BF}\x{1C4}-\x{293}\x{295}-\x{2AF}\x{370}-\x{373}\x{376}-\x{377}\x{37B}-\x{37D}\x{37F}\x{386}\x{388}-\x{38A}\x{38C}\x{38E}-\x{3A1}\x{3A3}-\x{3F5}\x{3F7}-\x{481}\x{48A}-\x{52F}\x{531}-\x{556}\x{560}-\x{588}\x{10A0}-\x{10C5}\x{10C7}\x{10CD}\x{10D0}-\x{10FA}\x{10FD}-\x{10FF}\x{13A0}-\x{13F5}\x{13F8}-\x{13FD}\x{1C80}-\x{1C88}\x{1C90}-\x{1CBA}\x{1CBD}-\x{1CBF}\x{1D00}-\x{1D2B}\x{1D6B}-\x{1D77}\x{1D79}-\x{1D9A}\x{1E00}-\x{1F15}\x{1F18}-\x{1F1D}\x{1F20}-\x{1F45}\x{1F48}-\x{1F4D}\x{1F50}-\x{1F57}\x{1F59}\x{1F5B}\x{1F5D}\x{1F5F}-\x{1F7D}\x{1F80}-\x{1FB4}\x{1FB6}-\x{1FBC}\x{1FBE}\x{1FC2}-\x{1FC4}\x{1FC6}-\x{1FCC}\x{1FD0}-\x{1FD3}\x{1FD6}-\x{1FDB}\x{1FE0}-\x{1FEC}\x{1FF2}-\x{1FF4}\x{1FF6}-\x{1FFC}\x{2102}\x{2107}\x{210A}-\x{2113}\x{2115}\x{2119}-\x{211D}\x{2124}\x{2126}\x{2128}\x{212A}-\x{212D}\x{212F}-\x{2134}\x{2139}\x{213C}-\x{213F}\x{2145}-\x{2149}\x{214E}\x{2160}-\x{217F}\x{2183}-\x{2184}\x{24B6}-\x{24E9}\x{2C00}-\x{2C7B}\x{2C7E}-\x{2CE4}\x{2CEB}-\x{2CEE}\x{2CF2}-\x{2CF3}\x{2D00}-\x{2D25}\x{2D27}\x{2D2D}\x{A640}-\x{A66D}\x{A680}-\x{A69B}\x{A722}-\x{A76F}\x{A771}-\x{A787}\x{A78B}-\x{A78E}\x{A790}-\x{A7CA}\x{A7D0}-\x{A7D1}\x{A7D3}\x{A7D5}-\x{A7D9}\x{A7F5}-\x{A7F6}\x{A7FA}\x{AB30}-\x{AB5A}\x{AB60}-\x{AB68}\x{AB70}-\x{ABBF}\x{FB00}-\x{FB06}\x{FB13}-\x{FB17}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{10400}-\x{1044F}\x{104B0}-\x{104D3}\x{104D8}-\x{104FB}\x{10570}-\x{1057A}\x{1057C}-\x{1058A}\x{1058C}-\x{10592}\x{10594}-\x{10595}\x{10597}-\x{105A1}\x{105A3}-\x{105B1}\x{105B3}-\x{105B9}\x{105BB}-\x{105BC}\x{10C80}-\x{10CB2}\x{10CC0}-\x{10CF2}\x{118A0}-\x{118DF}\x{16E40}-\x{16E7F}\x{1D400}-\x{1D454}\x{1D456}-\x{1D49C}\x{1D49E}-\x{1D49F}\x{1D4A2}\x{1D4A5}-\x{1D4A6}\x{1D4A9}-\x{1D4AC}\x{1D4AE}-\x{1D4B9}\x{1D4BB}\x{1D4BD}-\x{1D4C3}\x{1D4C5}-\x{1D505}\x{1D507}-\x{1D50A}\x{1D50D}-\x{1D514}\x{1D516}-\x{1D51C}\x{1D51E}-\x{1D539}\x{1D53B}-\x{1D53E}\x{1D540}-\x{1D544}\x{1D546}\x{1D54A}-\x{1D550}\x{1D552}-\x{1D6A5}\x{1D6A8}-\x{1D6C0}\x{1D6C2}-\x{1D6DA}\x{1D6DC}-\x{1D6FA}\x{1D6FC}-\x{1D714}\x{1D716}-\x{1D734}\x{1D736}-\x{1D74E}\x{1D750}-\x{1D76E}\x{1D770}-\x{1D788}\x{1D78A}-\x{1D7A8}\x{1D7AA}-\x{1D7C2}\x{1D7C4}-\x{1D7CB}\x{1DF00}-\x{1DF09}\x{1DF0B}-\x{1DF1E}\x{1E900}-\x{1E943}\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189}]') THEN 'c'
                    WHEN regexp_full_match(ch, '[\x{27}\x{2E}\x{3A}\x{5E}\x{60}\x{A8}\x{AD}\x{AF}\x{B4}\x{B7}-\x{B8}\x{2B0}-\x{36F}\x{374}-\x{375}\x{37A}\x{384}-\x{385}\x{387}\x{483}-\x{489}\x{559}\x{55F}\x{591}-\x{5BD}\x{5BF}\x{5C1}-\x{5C2}\x{5C4}-\x{5C5}\x{5C7}\x{5F4}\x{600}-\x{605}\x{610}-\x{61A}\x{61C}\x{640}\x{64B}-\x{65F}\x{670}\x{6D6}-\x{6DD}\x{6DF}-\x{6E8}\x{6EA}-\x{6ED}\x{70F}\x{711}\x{730}-\x{74A}\x{7A6}-\x{7B0}\x{7EB}-\x{7F5}\x{7FA}\x{7FD}\x{816}-\x{82D}\x{859}-\x{85B}\x{888}\x{890}-\x{891}\x{898}-\x{89F}\x{8C9}-\x{902}\x{93A}\x{93C}\x{941}-\x{948}\x{94D}\x{951}-\x{957}\x{962}-\x{963}\x{971}\x{981}\x{9BC}\x{9C1}-\x{9C4}\x{9CD}\x{9E2}-\x{9E3}\x{9FE}\x{A01}-\x{A02}\x{A3C}\x{A41}-\x{A42}\x{A47}-\x{A48}\x{A4B}-\x{A4D}\x{A51}\x{A70}-\x{A71}\x{A75}\x{A81}-\x{A82}\x{ABC}\x{AC1}-\x{AC5}\x{AC7}-\x{AC8}\x{ACD}\x{AE2}-\x{AE3}\x{AFA}-\x{AFF}\x{B01}\x{B3C}\x{B3F}\x{B41}-\x{B44}\x{B4D}\x{B55}-\x{B56}\x{B62}-\x{B63}\x{B82}\x{BC0}\x{BCD}\x{C00}\x{C04}\x{C3C}\x{C3E}-\x{C40}\x{C46}-\x{C48}\x{C4A}-\x{C4D}\x{C55}-\x{C56}\x{C62}-\x{C63}\x{C81}\x{CBC}\x{CBF}\x{CC6}\x{CCC}-\x{CCD}\x{CE2}-\x{CE3}\x{D00}-\x{D01}\x{D3B}-\x{D3C}\x{D41}-\x{D44}\x{D4D}\x{D62}-\x{D63}\x{D81}\x{DCA}\x{DD2}-\x{DD4}\x{DD6}\x{E31}\x{E34}-\x{E3A}\x{E46}-\x{E4E}\x{EB1}\x{EB4}-\x{EBC}\x{EC6}\x{EC8}-\x{ECD}\x{F18}-\x{F19}\x{F35}\x{F37}\x{F39}\x{F71}-\x{F7E}\x{F80}-\x{F84}\x{F86}-\x{F87}\x{F8D}-\x{F97}\x{F99}-\x{FBC}\x{FC6}\x{102D}-\x{1030}\x{1032}-\x{1037}\x{1039}-\x{103A}\x{103D}-\x{103E}\x{1058}-\x{1059}\x{105E}-\x{1060}\x{1071}-\x{1074}\x{1082}\x{1085}-\x{1086}\x{108D}\x{109D}\x{10FC}\x{135D}-\x{135F}\x{1712}-\x{1714}\x{1732}-\x{1733}\x{1752}-\x{1753}\x{1772}-\x{1773}\x{17B4}-\x{17B5}\x{17B7}-\x{17BD}\x{17C6}\x{17C9}-\x{17D3}\x{17D7}\x{17DD}\x{180B}-\x{180F}\x{1843}\x{1885}-\x{1886}\x{18A9}\x{1920}-\x{1922}\x{1927}-\x{1928}\x{1932}\x{1939}-\x{193B}\x{1A17}-\x{1A18}\x{1A1B}\x{1A56}\x{1A58}-\x{1A5E}\x{1A60}\x{1A62}\x{1A65}-\x{1A6C}\x{1A73}-\x{1A7C}\x{1A7F}\x{1AA7}\x{1AB0}-\x{1ACE}\x{1B00}-\x{1B03}\x{1B34}\x{1B36}-\x{1B3A}\x{1B3C}\x{1B42}\x{1B6B}-\x{1B73}\x{1B80}-\x{1B81}\x{1BA2}-\x{1BA5}\x{1BA8}-\x{1BA9}\x{1BAB}-\x{1BAD}\x{1BE6}\x{1BE8}-\x{1BE9}\x{1BED}\x{1BEF}-\x{1BF1}\x{1C2C}-\x{1C33}\x{1C36}-\x{1C37}\x{1C78}-\x{1C7D}\x{1CD0}-\x{1CD2}\x{1CD4}-\x{1CE0}\x{1CE2}-\x{1CE8}\x{1CED}\x{1CF4}\x{1CF8}-\x{1CF9}\x{1D2C}-\x{1D6A}\x{1D78}\x{1D9B}-\x{1DFF}\x{1FBD}\x{1FBF}-\x{1FC1}\x{1FCD}-\x{1FCF}\x{1FDD}-\x{1FDF}\x{1FED}-\x{1FEF}\x{1FFD}-\x{1FFE}\x{200B}-\x{200F}\x{2018}-\x{2019}\x{2024}\x{2027}\x{202A}-\x{202E}\x{2060}-\x{2064}\x{2066}-\x{206F}\x{2071}\x{207F}\x{2090}-\x{209C}\x{20D0}-\x{20F0}\x{2C7C}-\x{2C7D}\x{2CEF}-\x{2CF1}\x{2D6F}\x{2D7F}\x{2DE0}-\x{2DFF}\x{2E2F}\x{3005}\x{302A}-\x{302D}\x{3031}-\x{3035}\x{303B}\x{3099}-\x{309E}\x{30FC}-\x{30FE}\x{A015}\x{A4F8}-\x{A4FD}\x{A60C}\x{A66F}-\x{A672}\x{A674}-\x{A67D}\x{A67F}\x{A69C}-\x{A69F}\x{A6F0}-\x{A6F1}\x{A700}-\x{A721}\x{A770}\x{A788}-\x{A78A}\x{A7F2}-\x{A7F4}\x{A7F8}-\x{A7F9}\x{A802}\x{A806}\x{A80B}\x{A825}-\x{A826}\x{A82C}\x{A8C4}-\x{A8C5}\x{A8E0}-\x{A8F1}\x{A8FF}\x{A926}-\x{A92D}\x{A947}-\x{A951}\x{A980}-\x{A982}\x{A9B3}\x{A9B6}-\x{A9B9}\x{A9BC}-\x{A9BD}\x{A9CF}\x{A9E5}-\x{A9E6}\x{AA29}-\x{AA2E}\x{AA31}-\x{AA32}\x{AA35}-\x{AA36}\x{AA43}\x{AA4C}\x{AA70}\x{AA7C}\x{AAB0}\x{AAB2}-\x{AAB4}\x{AAB7}-\x{AAB8}\x{AABE}-\x{AABF}\x{AAC1}\x{AADD}\x{AAEC}-\x{AAED}\x{AAF3}-\x{AAF4}\x{AAF6}\x{AB5B}-\x{AB5F}\x{AB69}-\x{AB6B}\x{ABE5}\x{ABE8}\x{ABED}\x{FB1E}\x{FBB2}-\x{FBC2}\x{FE00}-\x{FE0F}\x{FE13}\x{FE20}-\x{FE2F}\x{FE52}\x{FE55}\x{FEFF}\x{FF07}\x{FF0E}\x{FF1A}\x{FF3E}\x{FF40}\x{FF70}\x{FF9E}-\x{FF9F}\x{FFE3}\x{FFF9}-\x{FFFB}\x{101FD}\x{102E0}\x{10376}-\x{1037A}\x{10780}-\x{10785}\x{10787}-\x{107B0}\x{107B2}-\x{107BA}\x{10A01}-\x{10A03}\x{10A05}-\x{10A06}\x{10A0C}-\x{10A0F}\x{10A38}-\x{10A3A}\x{10A3F}\x{10AE5}-\x{10AE6}\x{10D24}-\x{10D27}\x{10EAB}-\x{10EAC}\x{10F46}-\x{10F50}\x{10F82}-\x{10F85}\x{11001}\x{11038}-\x{11046}\x{11070}\x{11073}-\x{11074}\x{1107F}-\x{11081}\x{110B3}-\x{110B6}\x{110B9}-\x{110BA}\x{110BD}\x{110C2}\x{110CD}\x{11100}-\x{11102}\x{11127}-\x{1112B}\x{1112D}-\x{11134}\x{11173}\x{11180}-\x{11181}\x{111B6}-\x{111BE}\x{111C9}-\x{111CC}\x{111CF}\x{1122F}-\x{11231}\x{11234}\x{11236}-\x{11237}\x{1123E}\x{112DF}\x{112E3}-\x{112EA}\x{11300}-\x{11301}\x{1133B}-\x{1133C}\x{11340}\x{11366}-\x{1136C}\x{11370}-\x{11374}\x{11438}-\x{1143F}\x{11442}-\x{11444}\x{11446}\x{1145E}\x{114B3}-\x{114B8}\x{114BA}\x{114BF}-\x{114C0}\x{114C2}-\x{114C3}\x{115B2}-\x{115B5}\x{115BC}-\x{115BD}\x{115BF}-\x{115C0}\x{115DC}-\x{115DD}\x{11633}-\x{1163A}\x{1163D}\x{1163F}-\x{11640}\x{116AB}\x{116AD}\x{116B0}-\x{116B5}\x{116B7}\x{1171D}-\x{1171F}\x{11722}-\x{11725}\x{11727}-\x{1172B}\x{1182F}-\x{11837}\x{11839}-\x{1183A}\x{1193B}-\x{1193C}\x{1193E}\x{11943}\x{119D4}-\x{119D7}\x{119DA}-\x{119DB}\x{119E0}\x{11A01}-\x{11A0A}\x{11A33}-\x{11A38}\x{11A3B}-\x{11A3E}\x{11A47}\x{11A51}-\x{11A56}\x{11A59}-\x{11A5B}\x{11A8A}-\x{11A96}\x{11A98}-\x{11A99}\x{11C30}-\x{11C36}\x{11C38}-\x{11C3D}\x{11C3F}\x{11C92}-\x{11CA7}\x{11CAA}-\x{11CB0}\x{11CB2}-\x{11CB3}\x{11CB5}-\x{11CB6}\x{11D31}-\x{11D36}\x{11D3A}\x{11D3C}-\x{11D3D}\x{11D3F}-\x{11D45}\x{11D47}\x{11D90}-\x{11D91}\x{11D95}\x{11D97}\x{11EF3}-\x{11EF4}\x{13430}-\x{13438}\x{16AF0}-\x{16AF4}\x{16B30}-\x{16B36}\x{16B40}-\x{16B43}\x{16F4F}\x{16F8F}-\x{16F9F}\x{16FE0}-\x{16FE1}\x{16FE3}-\x{16FE4}\x{1AFF0}-\x{1AFF3}\x{1AFF5}-\x{1AFFB}\x{1AFFD}-\x{1AFFE}\x{1BC9D}-\x{1BC9E}\x{1BCA0}-\x{1BCA3}\x{1CF00}-\x{1CF2D}\x{1CF30}-\x{1CF46}\x{1D167}-\x{1D169}\x{1D173}-\x{1D182}\x{1D185}-\x{1D18B}\x{1D1AA}-\x{1D1AD}\x{1D242}-\x{1D244}\x{1DA00}-\x{1DA36}\x{1DA3B}-\x{1DA6C}\x{1DA75}\x{1DA84}\x{1DA9B}-\x{1DA9F}\x{1DAA1}-\x{1DAAF}\x{1E000}-\x{1E006}\x{1E008}-\x{1E018}\x{1E01B}-\x{1E021}\x{1E023}-\x{1E024}\x{1E026}-\x{1E02A}\x{1E130}-\x{1E13D}\x{1E2AE}\x{1E2EC}-\x{1E2EF}\x{1E8D0}-\x{1E8D6}\x{1E944}-\x{1E94B}\x{1F3FB}-\x{1F3FF}\x{E0001}\x{E0020}-\x{E007F}\x{E0100}-\x{E01EF}]') THEN 'i'
                    ELSE 'o' END), '') AS kinds
    FROM (SELECT *, string_split(output, '') AS cs FROM ordered WHERE NOT plain AND contains(output, 'Σ'))
),
special_lowered AS (
    -- Σ lowers to ς when a cased letter precedes it (case-ignorables skipped) and none follows
    SELECT gid, i,
           array_to_string(list_transform(cs, lambda ch, k:
               CASE WHEN ch <> 'Σ' THEN lower(replace(ch, 'İ', 'i̇'))
                    WHEN regexp_matches(kinds[:k - 1], 'ci*$')
                         AND NOT regexp_matches(kinds[k + 1:], '^i*c') THEN 'ς'
                    ELSE 'σ' END), '') AS low
    FROM special
),
runs AS MATERIALIZED (
    SELECT gid, n, i, output, toks, len(toks) AS ntok,
           CASE WHEN len(toks) = 0 THEN '' ELSE array_to_string(toks, ' ') || ' ' END AS joined
    FROM (
        SELECT o.gid, o.n, o.i, o.output,
               CASE WHEN o.plain AND o.output = '' THEN []::VARCHAR[]
                    WHEN o.plain THEN string_split(lower(o.output), ' ')
                    ELSE list_filter(
                        regexp_split_to_array(
                            coalesce(s.low, lower(replace(o.output, 'İ', 'i̇'))),
                            '[\t\n\x0B-\r\x1C-\x20\x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}]+'
                        ),
                        lambda t: t <> ''
                    ) END AS toks
        FROM ordered AS o
        LEFT JOIN special_lowered AS s ON s.gid = o.gid AND s.i = o.i
    )
),
pairs AS (
    -- every unordered pair (i < j) of runs in a group
    SELECT a.gid, a.n, a.i, b.i AS j, a.output = b.output AS same
    FROM runs AS a
    JOIN runs AS b ON a.gid = b.gid AND a.i < b.i
),
mask_hist AS (
    -- groups of <= 62 runs: how many distinct tokens have exactly this set m of runs
    SELECT gid, m, count(*) AS c
    FROM (
        SELECT gid, bit_or(CAST(1 AS BIGINT) << i) AS m
        FROM (SELECT gid, i, unnest(toks) AS tok FROM runs WHERE n <= 62)
        GROUP BY gid, tok
    )
    GROUP BY gid, m
),
small_counts AS (
    SELECT p.gid, p.i, p.j,
           coalesce(sum(h.c) FILTER (WHERE (h.m >> p.i) & (h.m >> p.j) & 1 = 1), 0) AS inter,
           coalesce(sum(h.c) FILTER (WHERE ((h.m >> p.i) | (h.m >> p.j)) & 1 = 1), 0) AS uni
    FROM pairs AS p
    LEFT JOIN mask_hist AS h ON h.gid = p.gid
    WHERE p.n <= 62
    GROUP BY p.gid, p.i, p.j
),
big_sets AS (
    SELECT DISTINCT gid, i, unnest(toks) AS tok FROM runs WHERE n > 62
),
big_sizes AS (
    SELECT r.gid, r.i, count(s.tok) AS size
    FROM runs AS r
    LEFT JOIN big_sets AS s ON s.gid = r.gid AND s.i = r.i
    WHERE r.n > 62
    GROUP BY r.gid, r.i
),
big_inter AS (
    SELECT a.gid, a.i, b.i AS j, count(*) AS inter
    FROM big_sets AS a
    JOIN big_sets AS b ON a.gid = b.gid AND a.tok = b.tok AND a.i < b.i
    GROUP BY a.gid, a.i, b.i
),
big_counts AS (
    SELECT p.gid, p.i, p.j, coalesce(x.inter, 0) AS inter,
           sa.size + sb.size - coalesce(x.inter, 0) AS uni
    FROM pairs AS p
    JOIN big_sizes AS sa ON sa.gid = p.gid AND sa.i = p.i
    JOIN big_sizes AS sb ON sb.gid = p.gid AND sb.i = p.j
    LEFT JOIN big_inter AS x ON x.gid = p.gid AND x.i = p.i AND x.j = p.j
    WHERE p.n > 62
),
pair_stats AS (
    SELECT gid,
           count(*) AS npairs,
           list_reduce(list(jac ORDER BY i, j), lambda x, y: x + y) AS jac_sum,
           any_value(jac) FILTER (WHERE i = 0 AND j = 1) AS jac01
    FROM (
        SELECT gid, i, j,
               CASE WHEN uni = 0 THEN 1.0::DOUBLE ELSE inter::DOUBLE / uni::DOUBLE END AS jac
        FROM (SELECT * FROM small_counts UNION ALL SELECT * FROM big_counts)
    )
    GROUP BY gid
),
same_stats AS (
    SELECT gid, count(*) FILTER (WHERE same) AS same_pairs FROM pairs GROUP BY gid
),
prefix AS (
    -- the tokens all runs share at the start = those the smallest and largest joined strings share
    SELECT gid, min_len, max_len, toks0,
           coalesce(
               list_position(list_transform(list_zip(lo, hi), lambda x: x[1] = x[2]), false) - 1,
               least(len(lo), len(hi))
           ) AS shared
    FROM (
        SELECT gid,
               min(ntok) AS min_len,
               max(ntok) AS max_len,
               any_value(toks) FILTER (WHERE i = 0) AS toks0,
               CASE WHEN min(joined) = '' THEN []::VARCHAR[]
                    ELSE string_split(rtrim(min(joined), ' '), ' ') END AS lo,
               CASE WHEN max(joined) = '' THEN []::VARCHAR[]
                    ELSE string_split(rtrim(max(joined), ' '), ' ') END AS hi
        FROM runs
        GROUP BY gid
    )
),
raw AS (
    SELECT p.gid, s.npairs,
           [e.same_pairs::DOUBLE / s.npairs::DOUBLE, s.jac_sum / s.npairs::DOUBLE, s.jac01]
               AS unrounded,
           CASE WHEN p.shared < p.min_len THEN p.toks0[p.shared + 1] END AS token,
           p.shared AS position,
           p.max_len
    FROM prefix AS p
    JOIN pair_stats AS s USING (gid)
    JOIN same_stats AS e USING (gid)
),
rounded AS (
    -- Python's round(d, 3). y = d * 2^64 * 2000 exactly, so y // 2^64 = floor(2000 d): even
    -- means below the half, odd means at or above it (y % 2^64 = 0: exactly on it, so to even).
    SELECT *,
           list_transform(unrounded, lambda d: list_transform(
               [CAST(d * 18446744073709551616::DOUBLE AS HUGEINT) * 2000],
               lambda y: CAST(
                   CASE WHEN (y // 18446744073709551616) % 2 = 0
                            THEN (y // 18446744073709551616) // 2
                        WHEN y % 18446744073709551616 > 0
                            THEN (y // 18446744073709551616) // 2 + 1
                        ELSE (y // 18446744073709551616) // 2
                             + ((y // 18446744073709551616) // 2) % 2
                   END AS DOUBLE) / 1000::DOUBLE
           )[1]) AS r3
    FROM raw
),
scored AS (
    SELECT *,
           '0.5'::DOUBLE * r3[1] + '0.3'::DOUBLE * r3[2]
               + '0.2'::DOUBLE * CASE WHEN max_len > 0
                                      THEN least(position::DOUBLE / max_len::DOUBLE, 1.0::DOUBLE)
                                      ELSE 1.0::DOUBLE END AS score_unrounded
    FROM rounded
)
SELECT g.suite, g.label, g.task_id, g.batch,
       CAST(g.n AS BIGINT) AS num_runs,
       s.r3[1] AS exact_match_rate,
       s.r3[2] AS avg_overlap,
       s.r3[3] AS jaccard,
       list_transform([s.score_unrounded], lambda d: list_transform(
           [CAST(d * 18446744073709551616::DOUBLE AS HUGEINT) * 2000],
           lambda y: CAST(
               CASE WHEN (y // 18446744073709551616) % 2 = 0
                        THEN (y // 18446744073709551616) // 2
                    WHEN y % 18446744073709551616 > 0
                        THEN (y // 18446744073709551616) // 2 + 1
                    ELSE (y // 18446744073709551616) // 2
                         + ((y // 18446744073709551616) // 2) % 2
               END AS DOUBLE) / 1000::DOUBLE
       )[1])[1] AS convergence_score,
       s.token AS diverges_at_token,
       CAST(s.position AS BIGINT) AS token_position
FROM scored AS s
JOIN grp AS g USING (gid)
ORDER BY g.suite, g.label, g.task_id, g.batch
