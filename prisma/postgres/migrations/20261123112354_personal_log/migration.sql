-- CreateTable
CREATE TABLE "LogEntry" (
    "id" TEXT NOT NULL,
    "runId" TEXT,
    "day" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "metrics" TEXT NOT NULL,
    "domains" TEXT NOT NULL,
    "significant" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LogEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ProfileFact" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "domain" TEXT,
    "source" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "runId" TEXT,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProfileFact_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Observation" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "triggers" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "changes" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Observation_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "LogEntry_day_idx" ON "LogEntry"("day");

-- CreateIndex
CREATE INDEX "LogEntry_runId_idx" ON "LogEntry"("runId");

-- CreateIndex
CREATE INDEX "Observation_runId_idx" ON "Observation"("runId");

-- CreateIndex
CREATE INDEX "Observation_createdAt_idx" ON "Observation"("createdAt");
