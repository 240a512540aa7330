-- CreateTable
CREATE TABLE "SignInAttempt" (
    "name" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    "windowStart" BIGINT NOT NULL,

    CONSTRAINT "SignInAttempt_pkey" PRIMARY KEY ("name")
);
