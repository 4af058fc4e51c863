package explore
