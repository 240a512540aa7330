-- AlterTable
ALTER TABLE "Run" ADD COLUMN "scheduleId" TEXT;

-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "version" INTEGER,
    "cron" TEXT NOT NULL,
    "timezone" TEXT NOT NULL,
    "input" TEXT NOT NULL,
    "runName" TEXT,
    "overlap" TEXT NOT NULL,
    "catchup" TEXT NOT NULL,
    "paused" BOOLEAN NOT NULL,
    "nextFireAt" DATETIME,
    "firingAt" DATETIME,
    "queuedFireAt" DATETIME,
    "lastFireAt" DATETIME,
    "lastRunId" TEXT,
    "lastSkipAt" DATETIME,
    "lastSkip" TEXT,
    "createdBy" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "Schedule_paused_nextFireAt_idx" ON "Schedule"("paused", "nextFireAt");

-- CreateIndex
CREATE INDEX "Run_scheduleId_createdAt_idx" ON "Run"("scheduleId", "createdAt");
