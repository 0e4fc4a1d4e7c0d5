"""King of the Hill (1958): the hill, its Tipper and its crater."""
