"""The IT admin's tools: `appliance doctor`, database backup and restore, retention.

Each module holds the logic of one job; the click commands in appliance/cli.py
only parse options and print:

    doctor.py           every check of an installed box, one function per check
    backup.py           online backups (SQLite backup API), restore with an integrity check
    retention.py        deleting old transcripts and recordings ([data] transcript_days, recording_days)
    service_process.py  is `appliance run` running, and who holds a port
"""
