-- Reserved words, mixed case, spaces, accents and a case-only clash.
CREATE TABLE "Order" ("select" int PRIMARY KEY, "from" text, "Unit Price" numeric(8,2), "café" text);
CREATE TABLE "order_Item" (id int PRIMARY KEY);
CREATE TABLE "ORDER_ITEM" (id int PRIMARY KEY);
