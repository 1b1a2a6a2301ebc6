-- Exact-arithmetic helpers loaded into every DuckDB connection (pipeline and warehouse).
-- DuckDB turns DECIMAL / INTEGER and avg(DECIMAL) into binary floats, so we divide integers.

-- n / d rounded half-up (half away from zero) to an integer; d > 0.
create or replace macro div_half_up(n, d) as
    sign(n) * ((2 * abs(n) + d) // (2 * d));

-- A decimal as people write it: 7.00 → 7, 5.50 → 5.5, -1.00 → −1 (U+2212 minus sign).
create or replace macro fmt_points(x) as
    case when x < 0 then '−' else '' end
    || case
        when abs(x) = trunc(abs(x)) then cast(cast(abs(x) as bigint) as varchar)
        else rtrim(cast(abs(x) as varchar), '0')
    end;

-- The same with an explicit sign: +1, −1, +0.
create or replace macro fmt_signed(x) as
    case when x >= 0 then '+' else '' end || fmt_points(x);
