-- AlterTable
ALTER TABLE "Run" ADD COLUMN     "scheduleId" TEXT;

-- CreateTable
CREATE TABLE "Schedule" (
    "id" TEXT NOT NULL,
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
    "nextFireAt" TIMESTAMP(3),
    "firingAt" TIMESTAMP(3),
    "queuedFireAt" TIMESTAMP(3),
    "lastFireAt" TIMESTAMP(3),
    "lastRunId" TEXT,
    "lastSkipAt" TIMESTAMP(3),
    "lastSkip" TEXT,
    "createdBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Schedule_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Schedule_paused_nextFireAt_idx" ON "Schedule"("paused", "nextFireAt");

-- CreateIndex
CREATE INDEX "Run_scheduleId_createdAt_idx" ON "Run"("scheduleId", "createdAt");
