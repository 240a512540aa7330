-- CreateTable
CREATE TABLE "ActiveState" (
    "state" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,

    PRIMARY KEY ("runId", "state")
);

-- CreateIndex
CREATE INDEX "ActiveState_state_createdAt_idx" ON "ActiveState"("state", "createdAt");

-- The live runs' active states: each leaf of Run.state (a JSON array of paths) and every group around it
WITH RECURSIVE "leaf"("runId", "createdAt", "path") AS (
    SELECT r."id", r."createdAt", j."value"
    FROM "Run" r, json_each(CASE WHEN json_valid(r."state") THEN r."state" ELSE '[]' END) j
    WHERE r."status" IN ('running', 'waiting') AND substr(r."id", 1, 9) <> 'imported-' AND j."type" = 'text'
), "up"("runId", "createdAt", "path", "state") AS (
    SELECT "runId", "createdAt", "path", CASE WHEN instr("path", '.') > 0 THEN substr("path", 1, instr("path", '.') - 1) ELSE "path" END FROM "leaf"
    UNION
    SELECT "runId", "createdAt", "path",
        "state" || '.' || CASE WHEN instr(substr("path", length("state") + 2), '.') > 0
            THEN substr(substr("path", length("state") + 2), 1, instr(substr("path", length("state") + 2), '.') - 1)
            ELSE substr("path", length("state") + 2) END
    FROM "up" WHERE length("state") < length("path")
)
INSERT OR IGNORE INTO "ActiveState" ("state", "runId", "createdAt") SELECT "state", "runId", "createdAt" FROM "up";
