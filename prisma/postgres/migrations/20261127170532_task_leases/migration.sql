-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "queues" TEXT;

-- AlterTable
ALTER TABLE "Task" ADD COLUMN     "leaseHash" TEXT,
ADD COLUMN     "settledBy" TEXT;

-- CreateTable
CREATE TABLE "RunPrincipal" (
    "runId" TEXT NOT NULL,
    "principal" TEXT NOT NULL,
    "createdAt" BIGINT NOT NULL,

    CONSTRAINT "RunPrincipal_pkey" PRIMARY KEY ("runId")
);
