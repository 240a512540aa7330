-- A run's current XState snapshot and context move from its Run row to its Snapshot row at the
-- run's seq: a step then appends that row instead of also rewriting a 3 KB Run row.
--
-- 1. Every run gets (or updates) its Snapshot row at its own seq from the Run columns, which are
--    the newest (a commit without transitions updated them but wrote no Snapshot row). A new row
--    carries the run's pending timers, as the engine writes them ({ id, dueAt (epoch ms), event, seq }).
INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at")
SELECT r."id", r."seq", r."seq", r."snapshot", r."context",
  (SELECT json_group_array(json_object('id', t."id", 'dueAt', CAST(round((julianday(t."dueAt") - 2440587.5) * 86400000) AS INTEGER), 'event', json(t."event"), 'seq', t."seq"))
     FROM "Timer" t WHERE t."runId" = r."id"),
  r."updatedAt"
FROM "Run" r WHERE true
ON CONFLICT ("runId","seq") DO UPDATE SET "snapshot" = excluded."snapshot", "context" = excluded."context";

-- 2. Drop the columns in place (not by redefining the table, which would renumber the rowids
--    the free-text index RunText is keyed by).
ALTER TABLE "Run" DROP COLUMN "snapshot";
ALTER TABLE "Run" DROP COLUMN "context";
