from lantern import Settings

settings = Settings(port=8443)
