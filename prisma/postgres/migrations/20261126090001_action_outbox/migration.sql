-- CreateTable
CREATE TABLE "CmDecision" (
    "key" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "decision" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CmDecision_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "ActionOutbox" (
    "key" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "workflow" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "lastError" TEXT,
    "dueAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ActionOutbox_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "ActionOutbox_dueAt_idx" ON "ActionOutbox"("dueAt");
