"""Re-identification risk of sanitized text (TRI): an attacker trained on public
background documents about a population of people tries to name the person behind each
protected document; TRIR is the share it names correctly. Also the attack-guided
masking that uses the same attacker to decide what else to hide."""
