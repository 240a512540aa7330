-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Transition" (
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "from" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "durationMs" INTEGER NOT NULL,
    "payload" TEXT,

    CONSTRAINT "Transition_pkey" PRIMARY KEY ("runId","seq")
);

-- CreateTable
CREATE TABLE "Timer" (
    "runId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "event" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,

    CONSTRAINT "Timer_pkey" PRIMARY KEY ("runId","id")
);

-- CreateTable
CREATE TABLE "Review" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "workflow" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "decision" TEXT,
    "feedback" TEXT,
    "reviewer" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "decidedAt" TIMESTAMP(3),
    "seq" INTEGER NOT NULL,

    CONSTRAINT "Review_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CmRequest" (
    "id" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "metadata" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CmRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CmResult" (
    "id" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "output" TEXT NOT NULL,
    "success" BOOLEAN NOT NULL,
    "patterns" TEXT NOT NULL,
    "metrics" TEXT NOT NULL,
    "links" TEXT NOT NULL,
    "storageStatus" TEXT NOT NULL,
    "decision" TEXT,
    "feedback" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "decidedAt" TIMESTAMP(3),

    CONSTRAINT "CmResult_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CmPattern" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "keywords" TEXT NOT NULL,
    "requestType" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION NOT NULL,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "approvals" INTEGER NOT NULL DEFAULT 0,
    "rejections" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CmPattern_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CmOutbox" (
    "id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CmOutbox_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "Run_status_updatedAt_idx" ON "Run"("status", "updatedAt");

-- CreateIndex
CREATE INDEX "Run_workflow_createdAt_idx" ON "Run"("workflow", "createdAt");

-- CreateIndex
CREATE INDEX "Run_createdAt_idx" ON "Run"("createdAt");

-- CreateIndex
CREATE INDEX "Transition_at_idx" ON "Transition"("at");

-- CreateIndex
CREATE INDEX "Timer_dueAt_idx" ON "Timer"("dueAt");

-- CreateIndex
CREATE INDEX "Review_status_createdAt_idx" ON "Review"("status", "createdAt");

-- CreateIndex
CREATE INDEX "Review_runId_idx" ON "Review"("runId");

-- CreateIndex
CREATE INDEX "CmRequest_runId_idx" ON "CmRequest"("runId");

-- CreateIndex
CREATE INDEX "CmResult_requestId_idx" ON "CmResult"("requestId");

-- CreateIndex
CREATE INDEX "CmResult_runId_idx" ON "CmResult"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "CmPattern_name_key" ON "CmPattern"("name");

-- CreateIndex
CREATE UNIQUE INDEX "CmOutbox_key_key" ON "CmOutbox"("key");
