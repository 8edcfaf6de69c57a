"""HTTP layer of the embedded server: DRF views, serializers, URLconf, error envelope, bearer check.

Nothing below this package imports it.
"""
