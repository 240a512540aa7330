-- CreateTable
CREATE TABLE "EffectCrash" (
    "key" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "crashes" INTEGER NOT NULL,
    "at" BIGINT NOT NULL,

    CONSTRAINT "EffectCrash_pkey" PRIMARY KEY ("key")
);
