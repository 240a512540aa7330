-- CreateTable
CREATE TABLE "Snapshot" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "first" INTEGER NOT NULL,
    "snapshot" TEXT NOT NULL,
    "context" TEXT NOT NULL,
    "timers" TEXT NOT NULL,
    "at" DATETIME NOT NULL,

    PRIMARY KEY ("runId", "seq")
);

-- CreateTable
CREATE TABLE "AlertRule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workflow" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "threshold" REAL NOT NULL,
    "windowMs" INTEGER NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ruleId" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "metric" TEXT NOT NULL,
    "value" REAL NOT NULL,
    "threshold" REAL NOT NULL,
    "message" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "openedAt" DATETIME NOT NULL,
    "resolvedAt" DATETIME
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Run" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workflow" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "snapshot" TEXT NOT NULL,
    "context" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "output" TEXT,
    "error" TEXT,
    "entered" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "seq" INTEGER NOT NULL,
    "parentId" TEXT,
    "forkOf" TEXT,
    "forkSeq" INTEGER,
    "retries" INTEGER NOT NULL DEFAULT 0,
    "waitingSince" DATETIME,
    "failedStates" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME
);
INSERT INTO "new_Run" ("context", "createdAt", "entered", "error", "finishedAt", "id", "input", "output", "parentId", "seq", "snapshot", "state", "status", "updatedAt", "version", "workflow") SELECT "context", "createdAt", "entered", "error", "finishedAt", "id", "input", "output", "parentId", "seq", "snapshot", "state", "status", "updatedAt", "version", "workflow" FROM "Run";
DROP TABLE "Run";
ALTER TABLE "new_Run" RENAME TO "Run";
CREATE INDEX "Run_status_updatedAt_idx" ON "Run"("status", "updatedAt");
CREATE INDEX "Run_waitingSince_createdAt_idx" ON "Run"("waitingSince", "createdAt");
CREATE INDEX "Run_retries_status_createdAt_idx" ON "Run"("retries", "status", "createdAt");
CREATE INDEX "Run_status_failedStates_idx" ON "Run"("status", "failedStates");
CREATE INDEX "Run_forkOf_idx" ON "Run"("forkOf");
CREATE INDEX "Run_status_createdAt_idx" ON "Run"("status", "createdAt");
CREATE INDEX "Run_workflow_createdAt_idx" ON "Run"("workflow", "createdAt");
CREATE INDEX "Run_workflow_status_idx" ON "Run"("workflow", "status");
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "AlertRule_workflow_idx" ON "AlertRule"("workflow");

-- CreateIndex
CREATE INDEX "Alert_status_workflow_idx" ON "Alert"("status", "workflow");

-- CreateIndex
CREATE INDEX "Alert_ruleId_status_idx" ON "Alert"("ruleId", "status");

-- Backfill the run list's filter columns for runs that existed before them
UPDATE "Run" SET "waitingSince" = (SELECT MIN(v."createdAt") FROM "Review" v WHERE v."runId" = "Run"."id" AND v."status" = 'pending');
UPDATE "Run" SET "retries" = (SELECT COUNT(*) FROM "Transition" t WHERE t."runId" = "Run"."id" AND (t."event" = 'RETRY' OR lower(t."reason") LIKE 'retry %' OR lower(t."reason") = 'retry' OR lower(t."reason") LIKE '%retried%'));
UPDATE "Run" SET "failedStates" = '|' || coalesce(json_extract("error", '$.state'), (SELECT group_concat(f.value, '|') FROM "Transition" t, json_each(t."from") f WHERE t."runId" = "Run"."id" AND t."seq" = "Run"."seq"), '') || '|' || (SELECT group_concat(s.value, '|') FROM json_each("Run"."state") s) || '|' WHERE "status" = 'failed';
