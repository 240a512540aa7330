-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ActiveState" (
    "state" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "workflow" TEXT NOT NULL DEFAULT '',
    "version" INTEGER,
    "status" TEXT NOT NULL DEFAULT 'running',
    "since" DATETIME,

    PRIMARY KEY ("runId", "state")
);
-- Each row gets its run's workflow, version pin (as the fleet's counters key it: 0 unless the input
-- pins a whole number; null for a replay or an evaluation run), status, and when the run entered the
-- state (Run.entered, epoch ms by state id: a group's own time, else its active leaves' earliest)
INSERT INTO "new_ActiveState" ("createdAt", "runId", "state", "workflow", "version", "status", "since")
SELECT a."createdAt", a."runId", a."state", r."workflow",
    CASE WHEN r."replayOf" IS NOT NULL THEN NULL
         WHEN json_valid(r."input") AND json_type(r."input", '$.definitionVersion') IN ('integer', 'real')
              AND json_extract(r."input", '$.definitionVersion') = CAST(json_extract(r."input", '$.definitionVersion') AS INTEGER)
         THEN CAST(json_extract(r."input", '$.definitionVersion') AS INTEGER)
         ELSE 0 END,
    r."status",
    (SELECT strftime('%Y-%m-%dT%H:%M:%f', t."ms" / 1000.0, 'unixepoch') || '+00:00' FROM (SELECT COALESCE(
        (SELECT e."value" FROM json_each(CASE WHEN json_valid(r."entered") THEN r."entered" ELSE '{}' END) e
         WHERE e."key" = a."state" AND e."type" IN ('integer', 'real')),
        (SELECT MIN(e."value") FROM json_each(CASE WHEN json_valid(r."state") THEN r."state" ELSE '[]' END) l
         JOIN json_each(CASE WHEN json_valid(r."entered") THEN r."entered" ELSE '{}' END) e ON e."key" = l."value"
         WHERE (l."value" = a."state" OR substr(l."value", 1, length(a."state") + 1) = a."state" || '.') AND e."type" IN ('integer', 'real'))
    ) AS "ms") t WHERE t."ms" IS NOT NULL)
FROM "ActiveState" a JOIN "Run" r ON r."id" = a."runId";
DROP TABLE "ActiveState";
ALTER TABLE "new_ActiveState" RENAME TO "ActiveState";
CREATE INDEX "ActiveState_state_createdAt_idx" ON "ActiveState"("state", "createdAt");
CREATE INDEX "ActiveState_workflow_version_state_since_status_idx" ON "ActiveState"("workflow", "version", "state", "since", "status");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
