-- CreateTable
CREATE TABLE "EffectCrash" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "crashes" INTEGER NOT NULL,
    "at" BIGINT NOT NULL
);
