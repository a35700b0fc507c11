"""Arabic formats as an Arabic reader expects them (settings.FORMAT_MODULE_PATH).

Django's own `ar` module has no DATETIME_FORMAT or SHORT_DATETIME_FORMAT, so dates and times
fell back to the English patterns («ديسمبر 1, 2026» and «12/01/2026», read as 12 January),
and it writes the decimal comma («0,3») where the learner's pages write «3.5». One choice
everywhere: day first, the Arabic comma before the time, the decimal point.
"""

DATE_FORMAT = "j F Y"
TIME_FORMAT = "g:i A"
DATETIME_FORMAT = "j F Y، g:i A"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y، g:i A"
FIRST_DAY_OF_WEEK = 6  # Saturday
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
