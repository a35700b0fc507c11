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
# What a date field reads: ISO first (what the admin's widgets write), then day first as shown;
# never Django's default month-first "%m/%d/%Y", which would read 01/12/2026 as 12 January.
DATE_INPUT_FORMATS = ["%Y-%m-%d", "%d/%m/%Y", "%d/%m/%y"]
TIME_INPUT_FORMATS = ["%H:%M:%S", "%H:%M:%S.%f", "%H:%M"]
DATETIME_INPUT_FORMATS = [
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y",
]
DECIMAL_SEPARATOR = "."
THOUSAND_SEPARATOR = ","
NUMBER_GROUPING = 3
