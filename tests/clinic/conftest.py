import pytest

