"""Excel's financial functions computed here (Insert Function: Financial).

- `payments.py`: PMT (#NUM! at rates of -100 % or below), PV (its formula below), ISPMT, and the
  one payment formula;
- `compounding.py`: NOMINAL and EFFECT;
- `annuity.py`: NPER, FV (any non-zero type, a rate of 0), PPMT's closed form, IPMT of any sign,
  CUMIPMT and CUMPRINC over whole periods, RATE by Newton's iteration;
- `depreciation.py`: DB, DDB (a period below 1), VDB;
- `french.py`: AMORLINC and AMORDEGRC, the French accounting system's depreciation;
- `cashflows.py`: XNPV's rate argument and the order of its sum; XIRR by Excel's interval halving;
- `irr.py`: IRR's and MIRR's flows as Excel reads them, and IRR's root in bounded time past 200 flows;
- `fractional.py`: DOLLARDE and DOLLARFR;
- `bondprice.py`: PRICE, YIELD, DURATION and MDURATION (Excel's formula on every basis);
- `maturity.py`: PRICEMAT and YIELDMAT (interest paid at maturity); `tbills.py`: TBILLPRICE, TBILLYIELD, TBILLEQ;
- `daycounts.py`: the days Excel counts in those, basis by basis (its two US 30/360 counts);
- `coupons.py`: COUPDAYS, COUPDAYBS, COUPDAYSNC, COUPNCD, COUPPCD, COUPNUM;
- `accrued.py`: ACCRINT (Excel's sum over quasi-coupon periods), ACCRINTM, on every basis;
- `moneymarket.py`: DISC, INTRATE, RECEIVED, PRICEDISC, YIELDDISC over YEARFRAC, on every basis;
- `oddcoupon.py`: ODDLPRICE, ODDLYIELD over quasi-coupon periods;
- `oddfirst.py`: ODDFPRICE, ODDFYIELD (Newton's iteration on the price), scipy never imported.
"""
