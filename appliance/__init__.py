"""Offline phone receptionist appliance for clinics."""

__version__ = "0.1.0"
