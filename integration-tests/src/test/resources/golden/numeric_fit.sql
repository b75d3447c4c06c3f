-- numeric(p,s) within NUMERIC(38,9) is exact; wider or unconstrained numeric is decided by its values.
CREATE TABLE prices (
  id int PRIMARY KEY,
  amount numeric(12,2) NOT NULL,
  rate numeric(38,9),
  fits_unconstrained numeric,
  too_precise numeric(30,20),
  has_nan numeric
);
INSERT INTO prices VALUES (1, 10.50, 0.000000001, 123.45, 1.5, 'NaN'), (2, 0, 99999999999999999999999999999.999999999,
  -7, 0.00000000000000000001, 2);
